// The bot's MCP side, built once from the config: the sandbox launcher for stdio servers, the connections, and
// the tools the agent offers. Absent when no server is configured.
import type { Config } from '../config/config.ts';
import type { AuditLog, ApprovalRuntime, Grants } from '../approvals/index.ts';
import { createServiceLauncher } from '../exec/longRunning.ts';
import type { Executor } from '../exec/types.ts';
import type { Logger } from '../ops/log.ts';
import { type ConnectionDeps, McpConnections } from './connections.ts';
import { McpTools } from './mcpTools.ts';

export interface Mcp {
  tools: McpTools;
  connections: McpConnections;
  close(): Promise<void>;
}

export function mcpFromConfig(
  config: Config,
  deps: { executor: Pick<Executor, 'sandbox'>; approvals: ApprovalRuntime; grants: Grants; audit: AuditLog; logger: Logger; authProvider?: ConnectionDeps['authProvider'] },
): Mcp | undefined {
  if (config.mcp.servers.length === 0) return undefined;
  const logger = deps.logger.child({ component: 'mcp' });
  const launcher = createServiceLauncher({
    mode: config.sandbox.mode,
    limits: config.sandbox.limits,
    uidBase: config.sandbox.uidBase,
    sandbox: () => deps.executor.sandbox(),
    logger,
  });
  const connections = new McpConnections({ launcher, logger, timeoutMs: config.mcp.timeoutMs, ...(deps.authProvider === undefined ? {} : { authProvider: deps.authProvider }) });
  const tools = new McpTools({
    settings: config.mcp,
    budgetChars: config.agent.mcpToolBudgetChars,
    connections,
    approvals: deps.approvals,
    grants: deps.grants,
    audit: deps.audit,
    logger,
  });
  return { tools, connections, close: () => connections.close() };
}
