// The transport that carries one connection to an MCP server: the SDK's Streamable HTTP (or, for an old server,
// SSE) transport over the bot's bounded, address-checked fetch, or our SandboxTransport over the pipes of a stdio
// server started in the sandbox (src/exec/longRunning.ts; the SDK's stdio transport spawns processes itself).
import { type OAuthClientProvider, SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { foldersToSee, type ServiceLauncher } from '../exec/longRunning.ts';
import { boundedFetch } from './boundedFetch.ts';
import type { ByteMeter } from './byteBounds.ts';
import type { McpServerConfig } from '../config/mcpSettings.ts';
import type { ConnectionScope, NotConnected } from './connectionTypes.ts';
import { SandboxTransport } from './sandboxTransport.ts';
import { serverFetch } from './serverFetch.ts';

/** The first folder to mount that is, or holds, one of the bot's own folders. */
function exposesBot(folders: readonly string[], botPaths: readonly string[]): { folder: string; holds: string } | undefined {
  for (const folder of folders) {
    const holds = botPaths.find((own) => own === folder || own.startsWith(`${folder}/`));
    if (holds !== undefined) return { folder, holds };
  }
  return undefined;
}

type RemoteServer = McpServerConfig & { type: 'http' | 'sse' };

/** An http/sse server's transport; `authProvider` only where the server has no static headers (a person signs in). */
export function remoteTransport(server: RemoteServer, meter: ByteMeter, authProvider: OAuthClientProvider | undefined): Transport {
  const url = new URL(server.url);
  const options = {
    requestInit: { headers: server.headers },
    // Every byte counted and bounded; off-origin URLs only over https to public addresses (serverFetch.ts).
    fetch: boundedFetch(serverFetch(server.url, server.oauth?.authorizationServer), meter),
    ...(authProvider === undefined ? {} : { authProvider }),
  };
  return server.type === 'http' ? new StreamableHTTPClientTransport(url, options) : new SSEClientTransport(url, options);
}

interface StdioStart {
  launcher: ServiceLauncher;
  scope: ConnectionScope;
  botPaths: readonly string[];
  meter: ByteMeter;
}

/** A stdio server started in the sandbox, or why it was not. */
export async function stdioTransport(server: McpServerConfig & { type: 'stdio' }, start: StdioStart): Promise<Transport | NotConnected> {
  const readOnly = foldersToSee(server.command, server.args);
  const exposed = exposesBot(readOnly, start.botPaths);
  if (exposed !== undefined) {
    return { ok: false, why: `the MCP server ${server.name} is not started: its command line names a file in ${exposed.folder}, which holds the bot's own ${exposed.holds}, and a server never sees the bot's files (move the server's files elsewhere)` };
  }
  const { scope } = start;
  const started = await start.launcher.start({
    name: `mcp ${server.name} for ${scope.worldId}`,
    command: server.command,
    args: server.args,
    env: server.env,
    readOnly,
    network: scope.network,
    egressAllow: [...(scope.egressAllow ?? [])],
    credentials: [...(scope.credentials ?? [])],
    owner: `mcp:${server.name}:${scope.worldId}`,
    ...(server.memoryBytes === undefined ? {} : { memoryBytes: server.memoryBytes }),
  });
  if ('refused' in started) return { ok: false, why: `the MCP server ${server.name} could not be started in the sandbox: ${started.refused}` };
  return new SandboxTransport(started, `the MCP server ${server.name}`, start.meter);
}
