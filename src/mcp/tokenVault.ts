// What a person's sign-in to an MCP server leaves: tokens, the PKCE verifier, the client registered with the
// server's authorization server. Kept per (server, person) in the store, encrypted (AES-256-GCM) with a key derived
// from the state key: a copy of the store alone reads nothing.
import { createHash } from 'node:crypto';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Cipher, MCP_TOKENS_LABEL, stateKeyCipher } from '../keys/sealing.ts';
import type { Store } from '../store/types.ts';

export interface SignInRecord {
  tokens?: OAuthTokens;
  codeVerifier?: string;
  /**
   * Tokens a browser brought back, held until the person who started the sign-in confirms in the chat the code
   * the callback page showed (signInConfirm.ts): whoever completes a link does not join an account by that alone.
   */
  pending?: { tokens: OAuthTokens; code: string; account: string };
}

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

  async updatePerson(server: string, personId: string, change: (record: SignInRecord) => SignInRecord): Promise<void> {
    const next = change(await this.person(server, personId));
    await this.store.set('mcp', TokenVault.key('person', server, personId), this.seal(next), KEEP_MS);
    const people = await this.people(server);
    if (!people.includes(personId)) await this.store.set('mcp', TokenVault.key('people', server), this.seal([...people, personId]), KEEP_MS);
  }

  /** Who has (or had) a sign-in record for the server: for `skillbot mcp disconnect SERVER` without --user. */
  async people(server: string): Promise<string[]> {
    return this.open<string[]>(await this.store.get('mcp', TokenVault.key('people', server))) ?? [];
  }

  async forget(server: string, personId: string): Promise<boolean> {
    const had = (await this.person(server, personId)).tokens !== undefined;
    await this.store.delete('mcp', TokenVault.key('person', server, personId));
    await this.store.delete('mcp', TokenVault.key('link', server, personId));
    const people = (await this.people(server)).filter((id) => id !== personId);
    await this.store.set('mcp', TokenVault.key('people', server), this.seal(people), KEEP_MS);
    return had;
  }

  /** The client the bot registered with the server's authorization server (one per server, shared by people). */
  async client(server: string): Promise<OAuthClientInformationMixed | undefined> {
    return this.open<OAuthClientInformationMixed>(await this.store.get('mcp', TokenVault.key('client', server)));
  }

  async saveClient(server: string, client: OAuthClientInformationMixed): Promise<void> {
    await this.store.set('mcp', TokenVault.key('client', server), this.seal(client), KEEP_MS);
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
