// An OAuth-protected MCP server of our own on loopback, built from the SDK's server and auth helpers (its
// authorization router, bearer middleware, Streamable HTTP transport): the authorization server signs people in
// by a `login` the test's "browser" adds to the authorize URL; the tool `whoami` answers whose token called it.
// Other servers (the Linear stand-in in fixtures/) register their own tools behind the same sign-in.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthServerProvider, AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { mountOAuthCallback } from '../../src/mcp/oauthCallback.ts';
import type { SignIns } from '../../src/mcp/signIn.ts';
import { HttpServer } from '../../src/ops/httpServer.ts';
import { silentLogger } from '../../src/ops/log.ts';

interface Token {
  login: string;
  clientId: string;
  expiresAt: number;
}

export interface OAuthMcp {
  url: string;
  /** Access tokens live this long (seconds) from now on. */
  accessSeconds: number;
  refreshes: number;
  /** Ends every token of a person, refresh tokens too. */
  revoke(login: string): void;
  close(): Promise<void>;
}

export interface OAuthMcpOptions {
  /** The server's name in its initialize answer. */
  name?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Its tools, registered on the McpServer made for each request (default: `whoami`). */
  register?: (mcp: McpServer) => void;
  /** Tokens an operator would put in a static Authorization header (token → login); they never expire. */
  staticTokens?: Record<string, string>;
}

const whoami = (mcp: McpServer): void => {
  mcp.registerTool('whoami', { description: 'Says whose account the call uses.' }, async (extra) => ({ content: [{ type: 'text', text: `account: ${String(extra.authInfo?.extra?.login)}` }] }));
};

export async function startOAuthMcp(options: OAuthMcpOptions = {}): Promise<OAuthMcp> {
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { client: string; params: AuthorizationParams; login: string }>();
  const access = new Map<string, Token>();
  const refresh = new Map<string, Token>();
  const state = { accessSeconds: 3600, refreshes: 0 };
  const issue = (login: string, clientId: string): OAuthTokens => {
    const token = randomUUID();
    const again = randomUUID();
    access.set(token, { login, clientId, expiresAt: Date.now() + state.accessSeconds * 1000 });
    refresh.set(again, { login, clientId, expiresAt: Infinity });
    // An OpenID-style id_token (unsigned: the bot only shows its name, as the account joined).
    const idToken = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ preferred_username: login })).toString('base64url')}.`;
    return { access_token: token, token_type: 'bearer', expires_in: state.accessSeconds, refresh_token: again, id_token: idToken };
  };
  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: async (id) => clients.get(id),
      registerClient: async (client) => {
        const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) } as OAuthClientInformationFull;
        clients.set(full.client_id, full);
        return full;
      },
    },
    async authorize(client, params, res: Response) {
      const login = String(res.req.query.login ?? 'nobody');
      const code = randomUUID();
      codes.set(code, { client: client.client_id, params, login });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(target.toString());
    },
    async challengeForAuthorizationCode(_client, code) {
      const entry = codes.get(code);
      if (entry === undefined) throw new Error('unknown code');
      return entry.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const entry = codes.get(code);
      if (entry === undefined || entry.client !== client.client_id) throw new Error('unknown code');
      codes.delete(code);
      return issue(entry.login, client.client_id);
    },
    async exchangeRefreshToken(client, token) {
      const entry = refresh.get(token);
      if (entry === undefined || entry.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
      refresh.delete(token);
      state.refreshes++;
      return issue(entry.login, client.client_id);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const operator = options.staticTokens?.[token];
      if (operator !== undefined) return { token, clientId: 'static', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600, extra: { login: operator } };
      const entry = access.get(token);
      if (entry === undefined || entry.expiresAt < Date.now()) throw new InvalidTokenError('invalid or expired token');
      return { token, clientId: entry.clientId, scopes: [], expiresAt: Math.floor(entry.expiresAt / 1000), extra: { login: entry.login } };
    },
  };

  const app = express();
  let base = '';
  const server: Server = app.listen(options.port ?? 0, '127.0.0.1');
  await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const port = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  app.post('/mcp', express.json(), requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) }), async (req, res) => {
    const mcp = new McpServer({ name: options.name ?? 'tracker', version: '1.0.0' });
    (options.register ?? whoami)(mcp);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return {
    url: mcpUrl.toString(),
    get accessSeconds() {
      return state.accessSeconds;
    },
    set accessSeconds(value: number) {
      state.accessSeconds = value;
    },
    get refreshes() {
      return state.refreshes;
    },
    revoke(login) {
      for (const tokens of [access, refresh]) for (const [key, entry] of tokens) if (entry.login === login) tokens.delete(key);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A SKILLBOT_CONFIG giving every world the server `tracker` at `url`, its calls unasked (these tests are about sign-in). */
export function trackerConfig(url: string): string {
  return ['mcpServers:', `  tracker: { type: http, url: ${JSON.stringify(url)} }`, 'defaults:', '  mcp: [tracker]', "  mcpNoApproval: ['mcp__tracker__*']", ''].join('\n');
}

/** The bot's HTTP listener as `skillbot start` mounts it, on `port` (PUBLIC_URL's): the OAuth redirect lands here. */
export async function listenForSignIns(signIns: SignIns, port: number): Promise<HttpServer> {
  const http = new HttpServer(silentLogger(), async () => ({ ok: true, detail: {} }));
  mountOAuthCallback(http, signIns);
  await http.listen(port, '127.0.0.1');
  return http;
}
