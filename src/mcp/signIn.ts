// Per-person sign-in to http/sse MCP servers that answer 401, with the SDK's OAuth client (authorization code +
// PKCE; the bot's Client ID Metadata Document where the authorization server takes one and PUBLIC_URL is https,
// dynamic client registration where it offers that, a configured client id otherwise; RFC 9207's `iss` checked on
// the way back). The link goes privately to the person whose turn needs it; the redirect lands on
// GET <PUBLIC_URL>/mcp/oauth/callback; the tokens are theirs alone (TokenVault), refreshed by the SDK.
import { randomBytes } from 'node:crypto';
import {
  auth,
  IssuerMismatchError,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { Logger } from '../ops/log.ts';
import type { McpServerConfig } from '../config/mcpSettings.ts';
import { serverFetch } from './serverFetch.ts';
import { clientMetadataDocument, clientMetadataUrl } from './clientMetadata.ts';
import type { TokenVault } from './tokenVault.ts';

type OAuthTokens = StoredOAuthTokens;

export const CALLBACK_PATH = '/mcp/oauth/callback';

/** What the person reads with their link, on every platform. */
export function signInText(server: string, url: string): string {
  return `To let Claude use ${server} for you, connect your account: ${url}\nThe link is yours alone. Your waiting request goes on once you are connected.`;
}

type RemoteServer = McpServerConfig & { type: 'http' | 'sse' };

/** The SDK's view of one person's sign-in to one server; `pendingUrl` is where the SDK last sent them. */
export class PersonAuth implements OAuthClientProvider {
  private pending: string | undefined;
  /** The bot's Client ID Metadata Document, offered where PUBLIC_URL is https (clientMetadata.ts). */
  readonly clientMetadataUrl: string | undefined;

  constructor(
    private readonly server: RemoteServer,
    private readonly personId: string,
    private readonly vault: TokenVault,
    private readonly publicUrl: string,
    /** At the callback: tokens are held under this code until the person confirms it in the chat. */
    private readonly holdUnder?: string,
  ) {
    this.clientMetadataUrl = server.oauth?.clientId === undefined ? clientMetadataUrl(publicUrl) : undefined;
  }

  get redirectUrl(): string {
    return `${this.publicUrl}${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'skillbot',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.server.oauth?.clientSecret === undefined ? 'none' : 'client_secret_post',
      ...(this.server.oauth?.scope === undefined ? {} : { scope: this.server.oauth.scope }),
    };
  }

  async state(): Promise<string> {
    const state = randomBytes(24).toString('base64url');
    await this.vault.rememberState(state, { server: this.server.name, personId: this.personId });
    return state;
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const configured = this.server.oauth;
    if (configured?.clientId !== undefined) return { client_id: configured.clientId, ...(configured.clientSecret === undefined ? {} : { client_secret: configured.clientSecret }) };
    return this.vault.client(this.server.name, ctx?.issuer);
  }

  async saveClientInformation(information: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): Promise<void> {
    await this.vault.saveClient(this.server.name, information, ctx?.issuer ?? information.issuer);
  }

  /** The person's tokens; asked for one issuer's, none when theirs came from another authorization server. */
  async tokens(ctx?: OAuthClientInformationContext): Promise<OAuthTokens | undefined> {
    const tokens = (await this.vault.person(this.server.name, this.personId)).tokens;
    if (ctx !== undefined && tokens?.issuer !== undefined && tokens.issuer !== ctx.issuer) return undefined;
    return tokens;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.vault.updatePerson(this.server.name, this.personId, (record) => ({ ...record, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.vault.person(this.server.name, this.personId)).discovery;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const code = this.holdUnder;
    const account = accountOf(tokens, this.server.url);
    await this.vault.updatePerson(this.server.name, this.personId, (record) => (code === undefined ? { ...record, tokens } : { ...record, pending: { tokens, code, account } }));
  }

  redirectToAuthorization(url: URL): void {
    this.pending = url.toString();
  }

  pendingUrl(): string | undefined {
    return this.pending;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.vault.updatePerson(this.server.name, this.personId, (record) => ({ ...record, codeVerifier }));
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.vault.person(this.server.name, this.personId)).codeVerifier;
    if (verifier === undefined) throw new Error('no sign-in is under way for this person and server');
    return verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'tokens') await this.vault.updatePerson(this.server.name, this.personId, ({ tokens: _gone, pending: _held, ...rest }) => rest);
    if (scope === 'verifier') await this.vault.updatePerson(this.server.name, this.personId, ({ codeVerifier: _gone, ...rest }) => rest);
    if (scope === 'discovery' || scope === 'all') await this.vault.updatePerson(this.server.name, this.personId, ({ discovery: _gone, ...rest }) => rest);
  }
}

export type CallbackOutcome = { ok: true; server: string; personId: string; code: string; account: string } | { ok: false; why: string };

/**
 * Which account the tokens are for, as well as the bot can tell: the `id_token`'s name claims when the server sent
 * one (shown, never trusted for anything), else the server's host.
 */
export function accountOf(tokens: OAuthTokens, serverUrl: string): string {
  const payload = typeof tokens.id_token === 'string' ? tokens.id_token.split('.')[1] : undefined;
  try {
    const claims = payload === undefined ? {} : (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>);
    const name = [claims.email, claims.preferred_username, claims.name, claims.sub].find((value) => typeof value === 'string' && value !== '');
    // The server's words on a card and a page: letters, digits and the few marks of an address or a login only.
    const shown = typeof name === 'string' ? name.replace(/[^\p{L}\p{N}@._+-]/gu, '').slice(0, 100) : '';
    if (shown !== '') return `${shown} at ${new URL(serverUrl).host}`;
  } catch {
    // Not a JWT: the host alone.
  }
  return `the account you signed in with at ${new URL(serverUrl).host}`;
}

/** A short code for the page and the chat: six digits, grouped. */
const confirmationCode = (): string => {
  const digits = String(randomBytes(4).readUInt32BE(0) % 1_000_000).padStart(6, '0');
  return `${digits.slice(0, 3)}-${digits.slice(3)}`;
};

/** Sign-ins of this process: providers, the callback's exchange of the code, and turns waiting for one. */
export class SignIns {
  constructor(
    private readonly servers: readonly McpServerConfig[],
    private readonly vault: TokenVault,
    private readonly publicUrl: string,
    private readonly logger: Logger,
  ) {}

  /** The bot's Client ID Metadata Document, served where PUBLIC_URL is https (clientMetadata.ts). */
  clientMetadata(): object | undefined {
    return clientMetadataDocument(this.publicUrl, CALLBACK_PATH);
  }

  provider(server: RemoteServer, personId: string): PersonAuth {
    return new PersonAuth(server, personId, this.vault, this.publicUrl);
  }

  /** GET /mcp/oauth/callback: the code is exchanged for the person's tokens (the SDK's `auth`). */
  async complete(query: URLSearchParams): Promise<CallbackOutcome> {
    const state = query.get('state') ?? '';
    const pending = state === '' ? undefined : await this.vault.takeState(state);
    if (pending === undefined) return { ok: false, why: 'This sign-in link is unknown or older than 10 minutes. Ask the bot again to get a new one.' };
    const server = this.servers.find((entry): entry is RemoteServer => entry.name === pending.server && entry.type !== 'stdio');
    if (server === undefined) return { ok: false, why: `The MCP server ${pending.server} is no longer configured.` };
    const error = query.get('error');
    if (error !== null) return { ok: false, why: `The sign-in to ${server.name} was not completed (${error.slice(0, 100)}).` };
    const code = query.get('code');
    if (code === null || code === '') return { ok: false, why: 'The sign-in answer carries no code.' };
    const confirm = confirmationCode();
    try {
      const provider = new PersonAuth(server, pending.personId, this.vault, this.publicUrl, confirm);
      // `iss` (RFC 9207) is checked by the SDK against the issuer recorded before the redirect: a mix-up fails here.
      const iss = query.get('iss') ?? undefined;
      const result = await auth(provider, { serverUrl: server.url, authorizationCode: code, ...(iss === undefined ? {} : { iss }), fetchFn: serverFetch(server.url, server.oauth?.authorizationServer) });
      if (result !== 'AUTHORIZED') return { ok: false, why: `The sign-in to ${server.name} did not finish.` };
    } catch (caught) {
      this.logger.warn({ server: server.name, err: (caught as Error).message }, 'MCP sign-in: exchanging the code failed');
      // An issuer mismatch names values an attacker chose: the page says what happened, not what was received.
      if (IssuerMismatchError.isInstance(caught)) return { ok: false, why: `The sign-in to ${server.name} was refused: the answer came from another authorization server than the one the link was for.` };
      return { ok: false, why: `The sign-in to ${server.name} failed: ${(caught as Error).message.slice(0, 200)}` };
    }
    const held = (await this.vault.person(server.name, pending.personId)).pending;
    if (held === undefined || held.code !== confirm) return { ok: false, why: `The sign-in to ${server.name} did not finish.` };
    this.logger.info({ server: server.name, personId: pending.personId }, 'MCP sign-in completed in a browser: waiting for the person to confirm it in the chat');
    // A later click on the person's Connect button finds no link, and is told they are connected.
    await this.vault.forgetLink(server.name, pending.personId).catch((error: unknown) => this.logger.warn({ err: error }, 'forgetting a used sign-in link failed'));
    await this.vault.announceSignIn(server.name, pending.personId).catch((error: unknown) => this.logger.warn({ err: error }, 'announcing a completed MCP sign-in failed'));
    return { ok: true, server: server.name, personId: pending.personId, code: confirm, account: held.account };
  }

  /** The sign-in a browser brought back for the person, waiting for them to confirm it. */
  async held(server: string, personId: string): Promise<{ code: string; account: string } | undefined> {
    const pending = (await this.vault.person(server, personId)).pending;
    return pending === undefined ? undefined : { code: pending.code, account: pending.account };
  }

  /** Before a new link goes out: a sign-in held from an earlier one is dropped. */
  async forgetHeld(server: string, personId: string): Promise<void> {
    if ((await this.vault.person(server, personId)).pending === undefined) return;
    await this.vault.updatePerson(server, personId, ({ pending: _dropped, ...rest }) => rest);
  }

  /** The person confirmed (their tokens from now on) or declined (dropped) the held sign-in under `code`. */
  async settle(server: string, personId: string, code: string, confirmed: boolean): Promise<boolean> {
    let joined = false;
    await this.vault.updatePerson(server, personId, (record) => {
      // Runs again when another instance wrote in between: decided on what is there now.
      const { pending, ...rest } = record;
      joined = false;
      if (pending === undefined || pending.code !== code) return record;
      joined = confirmed;
      return confirmed ? { ...rest, tokens: pending.tokens } : rest;
    });
    this.logger.info({ server, personId, joined }, joined ? 'MCP sign-in confirmed in the chat' : 'MCP sign-in declined in the chat (or not confirmed): dropped');
    return joined;
  }

  /**
   * Resolves true once a browser completes the person's sign-in to the server (here, or on another instance: the
   * callback announces it on the store's pub/sub, and a sign-in held already is found at once), false at the
   * timeout or a stop. The person then confirms it (signInConfirm.ts).
   */
  async waitFor(server: string, personId: string, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    let finish: (value: boolean) => void = () => undefined;
    const settled = new Promise<boolean>((resolve) => (finish = resolve));
    const unsubscribe = await this.vault.onSignIn(server, personId, () => finish(true));
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) finish(false);
    // Completed before the subscription held: the record says so.
    void this.vault.person(server, personId).then(({ pending }) => pending !== undefined && finish(true), () => undefined);
    try {
      return await settled;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      await unsubscribe().catch((error: unknown) => this.logger.warn({ err: error }, 'leaving the MCP sign-in channel failed'));
    }
  }

  /** `skillbot mcp disconnect` and Slack's App Home: the person's tokens go; true when there were some. */
  disconnect(server: string, personId: string): Promise<boolean> {
    return this.vault.forget(server, personId);
  }

  /** Keeps the link a person was sent, for a platform that shows it only when they click (Discord). */
  rememberLink(server: string, personId: string, url: string): Promise<void> {
    return this.vault.rememberLink(server, personId, url);
  }

  /** The person's sign-in link to the server while it works; undefined when none is pending (or it was used). */
  pendingLink(server: string, personId: string): Promise<string | undefined> {
    return this.vault.link(server, personId);
  }

  /** Whether the person holds tokens for the server (they may still be refused if revoked). */
  async connected(server: string, personId: string): Promise<boolean> {
    return (await this.vault.person(server, personId)).tokens !== undefined;
  }
}
