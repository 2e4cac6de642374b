// The terminal chat has no HTTP listener of its own: where a configured server may ask people to sign in, one
// is opened on PORT for the OAuth callback alone, on 127.0.0.1 (the person's browser runs on this machine) unless
// HOST names another address. A busy port is logged, not fatal: sign-in then cannot finish.
import type { Config } from '../config/config.ts';
import { HttpServer } from '../ops/httpServer.ts';
import type { Logger } from '../ops/log.ts';
import { mountOAuthCallback } from './oauthCallback.ts';
import type { SignIns } from './signIn.ts';

export async function signInListener(signIns: SignIns, config: Config, logger: Logger): Promise<HttpServer | undefined> {
  const mayAsk = config.mcp.servers.some((server) => server.type !== 'stdio' && Object.keys(server.headers).length === 0);
  if (!mayAsk) return undefined;
  const http = new HttpServer(logger, async () => ({ ok: true, detail: {} }));
  mountOAuthCallback(http, signIns);
  try {
    await http.listen(config.port, config.hostSet === true ? config.host : '127.0.0.1');
    return http;
  } catch (error) {
    logger.warn({ err: error, port: config.port }, 'the MCP sign-in callback could not listen on PORT: signing in to MCP servers will not finish');
    return undefined;
  }
}
