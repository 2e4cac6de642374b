// What a connection to an MCP server is to those who use it, and what it needs: kept apart so the connection
// (serverConnection.ts), its transport (transports.ts) and the pool (connections.ts) share them without a circle.
import type { Client, ElicitResult, OAuthClientProvider, Tool } from '@modelcontextprotocol/client';
import type { Credential } from '../config/credentialsSchema.ts';
import type { ServiceLauncher } from '../exec/longRunning.ts';
import type { Logger } from '../ops/log.ts';
import type { McpServerConfig } from '../config/mcpSettings.ts';
import type { QuestionParams } from './questions/questions.ts';
import type { QuestionAsker } from './questions/questionTypes.ts';

export type Connected = {
  ok: true;
  client: Client;
  /** The server's tools now (tools/list_changed replaces them). */
  tools: () => readonly Tool[];
  /** Why the server was cut off (a bound of byteBounds.ts passed), once it was. */
  cutOff: () => string | undefined;
  /** Runs a call on this connection for `asker`: a question the server asks meanwhile goes to them. */
  asking<T>(asker: QuestionAsker, call: () => Promise<T>): Promise<T>;
};
export type NotConnected = { ok: false; why: string; signIn?: { url: string } };

export interface ConnectionScope {
  worldId: string;
  personId: string;
  /** The world lets this stdio server reach the network (through the egress proxy). */
  network: boolean;
  /** The world's `egressAllow`, for a networked server's proxy. */
  egressAllow?: readonly string[];
  /** The world's `credentials`: a stdio server holds their placeholders, its proxy sets their values. */
  credentials?: readonly Credential[];
}

export interface ConnectionDeps {
  launcher: ServiceLauncher;
  logger: Logger;
  timeoutMs: number;
  /** Per-person OAuth for http/sse servers without static headers (absent: no sign-in). */
  authProvider?: (server: McpServerConfig & { type: 'http' | 'sse' }, personId: string) => OAuthClientProvider & { pendingUrl(): string | undefined };
  /** A server's question (elicitation) with the calls its connection is serving (absent: every question is cancelled). */
  onQuestion?: (server: string, params: QuestionParams, askers: readonly QuestionAsker[]) => Promise<ElicitResult>;
  /** Called when a server's tool list changed, so cached tool sets are rebuilt. */
  onToolsChanged?: () => void;
  /** The bot's own folders (its working folder, store, workspaces, config): a stdio server never sees them. */
  botPaths?: readonly string[];
  /** A person's (or a world's) connection unused this long is closed (default 15 minutes). */
  idleMs?: number;
  now?: () => number;
}

