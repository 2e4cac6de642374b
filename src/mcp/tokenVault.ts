// What a person's sign-in to an MCP server leaves: tokens (stamped by the SDK with the authorization server that
// issued them), the PKCE verifier and the discovery made before the redirect, the client registered with each
// authorization server (keyed by its issuer). Kept per (server, person) in the store, encrypted (AES-256-GCM) with
// a key derived from the state key (src/keys): a copy of the store alone reads nothing. Every change is a
// compare-and-set on the record's revision, so two instances refreshing or confirming at once never lose each
// other's write.
import { createHash, randomBytes } from 'node:crypto';
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { type Cipher, MCP_TOKENS_LABEL, stateKeyCipher } from '../keys/sealing.ts';
import type { Store } from '../store/types.ts';

type OAuthTokens = StoredOAuthTokens;

export interface SignInRecord {
  tokens?: OAuthTokens;
  codeVerifier?: string;
  /** The authorization server found before the redirect: the callback's `iss` (RFC 9207) is checked against it. */
  discovery?: OAuthDiscoveryState;
  /**
   * Tokens a browser brought back, held until the person who started the sign-in confirms in the chat the code
   * the callback page showed (signInConfirm.ts): whoever completes a link does not join an account by that alone.
   */
  pending?: { tokens: OAuthTokens; code: string; account: string };
}

/** `status` is the record's revision (the store's compareAndSet compares it); records written before it had none. */
const sealedSchema = z.object({ v: z.literal(1), iv: z.string(), tag: z.string(), data: z.string(), status: z.string().optional() });
/** Writers racing on one record: each retries on a lost compare-and-set, this many times at most. */
const MAX_TRIES = 20;
/** Sign-ins are kept a long while; a refresh token's own lifetime decides more than this. */
const KEEP_MS = 180 * 24 * 60 * 60 * 1000;
/** How long a sign-in link works: its OAuth `state` is kept this long. */
const STATE_MS = 10 * 60 * 1000;

export class TokenVault {
  private readonly cipher: Cipher;

  constructor(
    private readonly store: Store,
    stateKey: Buffer,
  ) {
    this.cipher = stateKeyCipher(stateKey, MCP_TOKENS_LABEL);
  }

  /** Person ids may hold anything: the store key is a hash, so listing a namespace names nobody. */
  private static key(kind: string, server: string, personId?: string): string {
    return `oauth:${kind}:${server}${personId === undefined ? '' : `:${createHash('sha256').update(personId).digest('hex').slice(0, 32)}`}`;
  }

  private seal(value: unknown): ReturnType<Cipher['encrypt']> {
    return this.cipher.encrypt(value);
  }

  /** Another key's record, or one tampered with, reads as if nobody had signed in. */
  private open<T>(raw: unknown): T | undefined {
    return this.cipher.decrypt<T>(raw);
  }

  async person(server: string, personId: string): Promise<SignInRecord> {
    return this.open<SignInRecord>(await this.store.get('mcp', TokenVault.key('person', server, personId))) ?? {};
  }

  /**
   * Reads, changes and writes one record as one step across instances: the write is a compare-and-set on the
   * revision read (a claim when there was none), and `change` runs again on what another writer left.
   */
  private async update<T>(key: string, change: (value: T | undefined) => T, ttlMs: number): Promise<void> {
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      const raw = await this.store.get('mcp', key);
      const next = { ...this.seal(change(this.open<T>(raw))), status: randomBytes(12).toString('base64url') };
      const read = sealedSchema.safeParse(raw);
      let written: boolean;
      if (raw === undefined || raw === null) written = await this.store.claim('mcp', key, next, ttlMs);
      else if (read.success && read.data.status !== undefined) written = await this.store.compareAndSet('mcp', key, read.data.status, next, ttlMs);
      else written = await this.store.set('mcp', key, next, ttlMs).then(() => true); // from before revisions: replaced once
      if (written) return;
    }
    throw new Error(`the MCP sign-in record ${key.split(':').slice(0, 3).join(':')} was changed by others ${MAX_TRIES} times in a row`);
  }

  async updatePerson(server: string, personId: string, change: (record: SignInRecord) => SignInRecord): Promise<void> {
    await this.update<SignInRecord>(TokenVault.key('person', server, personId), (record) => change(record ?? {}), KEEP_MS);
    if ((await this.people(server)).includes(personId)) return;
    await this.update<string[]>(TokenVault.key('people', server), (people = []) => (people.includes(personId) ? people : [...people, personId]), KEEP_MS);
  }

  /** Who has (or had) a sign-in record for the server: for `skillbot mcp disconnect SERVER` without --user. */
  async people(server: string): Promise<string[]> {
    return this.open<string[]>(await this.store.get('mcp', TokenVault.key('people', server))) ?? [];
  }

  async forget(server: string, personId: string): Promise<boolean> {
    const had = (await this.person(server, personId)).tokens !== undefined;
    await this.store.delete('mcp', TokenVault.key('person', server, personId));
    await this.store.delete('mcp', TokenVault.key('link', server, personId));
    await this.update<string[]>(TokenVault.key('people', server), (people = []) => people.filter((id) => id !== personId), KEEP_MS);
    return had;
  }

  /**
   * The client the bot registered with an authorization server for the server (one per issuer, shared by people):
   * a client id is the issuer's alone (RFC 6749 §2.2), so a server that moves to another one registers afresh.
   */
  async client(server: string, issuer = ''): Promise<StoredOAuthClientInformation | undefined> {
    return this.open<StoredOAuthClientInformation>(await this.store.get('mcp', TokenVault.key('client', server, issuer)));
  }

  async saveClient(server: string, client: StoredOAuthClientInformation, issuer = ''): Promise<void> {
    await this.store.set('mcp', TokenVault.key('client', server, issuer), this.seal(client), KEEP_MS);
  }

  /** The channel on which a completed sign-in is announced to every instance (the waiting turn may be elsewhere). */
  private static signedInChannel(server: string, personId: string): string {
    return `mcp:signed-in:${TokenVault.key('person', server, personId)}`;
  }

  /** Tells every instance that a browser brought the person's sign-in back (it is held in their record). */
  announceSignIn(server: string, personId: string): Promise<void> {
    return this.store.publish(TokenVault.signedInChannel(server, personId), 'held');
  }

  /** Calls `then` on each announcement for the person and server; resolves (to the unsubscribe) once listening. */
  onSignIn(server: string, personId: string, then: () => void): Promise<() => Promise<void>> {
    return this.store.subscribe(TokenVault.signedInChannel(server, personId), then);
  }

  /**
   * The link a person was last sent to sign in with, while its `state` lives (10 minutes): where the platform shows
   * it only in answer to the person's own click (Discord's Connect button), any instance finds it here.
   */
  async rememberLink(server: string, personId: string, url: string): Promise<void> {
    await this.store.set('mcp', TokenVault.key('link', server, personId), this.seal(url), STATE_MS);
  }

  async link(server: string, personId: string): Promise<string | undefined> {
    const url = this.open<unknown>(await this.store.get('mcp', TokenVault.key('link', server, personId)));
    return typeof url === 'string' ? url : undefined;
  }

  async forgetLink(server: string, personId: string): Promise<void> {
    await this.store.delete('mcp', TokenVault.key('link', server, personId));
  }

  /** A sign-in under way: the OAuth `state` names the server and the person (10 minutes). */
  async rememberState(state: string, pending: { server: string; personId: string }): Promise<void> {
    await this.store.set('mcp', `oauth:state:${state}`, this.seal(pending), STATE_MS);
  }

  async takeState(state: string): Promise<{ server: string; personId: string } | undefined> {
    const key = `oauth:state:${state}`;
    const pending = this.open<{ server: string; personId: string }>(await this.store.get('mcp', key));
    if (pending !== undefined) await this.store.delete('mcp', key);
    return pending;
  }
}
