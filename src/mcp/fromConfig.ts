// The bot's MCP side, built once from the config: the sandbox launcher for stdio servers, the connections, and
// the tools the agent offers. Absent when no server is configured.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config.ts';
import type { AuditLog, ApprovalRuntime, Grants } from '../approvals/index.ts';
import type { Executor } from '../exec/types.ts';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import { McpConnections } from './connections.ts';
import { SignIns } from './signIn.ts';
import { TokenVault } from './tokenVault.ts';
import { McpTools } from './mcpTools.ts';
import { McpTasks } from './taskRuntime.ts';
import { type FolderSkill, ServerSkillCatalog } from './serverSkillCatalog.ts';
import { McpQuestions } from './questions/questions.ts';
import { routeQuestion } from './questions/serverQuestions.ts';

/** `S`: a validated skill (src/skills' Skill, which src/mcp does not import). */
export interface Mcp<S extends FolderSkill = FolderSkill> {
  tools: McpTools;
  connections: McpConnections;
  /** Per-person sign-in: the callback route's work, `skillbot mcp disconnect`. */
  signIns: SignIns;
  /** Calls running as tasks: the app starts their polling (`tasks.start`) and stops it at shutdown. */
  tasks: McpTasks;
  /** The skills the servers serve, as each turn's world sees them (serverSkillCatalog.ts). */
  skills: ServerSkillCatalog<S>;
  /** Servers' questions put to people (the platforms add their presenters; a click or submission answers them). */
  questions: McpQuestions;
  /** The servers people sign in to one by one, and whether this person is connected to each (Slack's App Home). */
  accounts(personId: string): Promise<Array<{ server: string; connected: boolean }>>;
  /**
   * Removes the person's sign-in to a server and closes their live connection here, so their next call asks them to
   * connect again; false when the server is not one people sign in to, or they were not connected.
   */
  disconnect(server: string, personId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The bot's own folders, absolute and resolved through links: its working folder, store, workspaces, config. */
function botPaths(config: Config): string[] {
  const store = /^sqlite:\/\/(.+)$/.exec(config.storeUrl)?.[1];
  const paths = [process.cwd(), config.workspace.root, ...(store === undefined ? [] : [path.dirname(store)]), ...(config.configFile === undefined ? [] : [path.dirname(config.configFile)])];
  return [...new Set(paths.map((entry) => realpathOr(path.resolve(entry))))];
}

function realpathOr(target: string): string {
  try {
    return realpathSync(target);
  } catch {
    return target;
  }
}

export function mcpFromConfig<S extends FolderSkill>(
  config: Config,
  deps: {
    executor: Pick<Executor, 'startService'>;
    approvals: ApprovalRuntime;
    grants: Grants;
    audit: AuditLog;
    logger: Logger;
    store: Store;
    stateKey: Buffer;
    /** The names of skillbot's own tools (src/agent/tools/index.ts): a server's tool of one of them is refused. */
    ourToolNames: ReadonlySet<string>;
    /** Reads a server's materialised skill folder as the registry reads its own (SkillRegistry.indexFolder). */
    indexFolder: (dir: string) => Promise<{ skill: S } | { why: string }>;
  },
): Mcp<S> | undefined {
  if (config.mcp.servers.length === 0) return undefined;
  const logger = deps.logger.child({ component: 'mcp' });
  const signIns = new SignIns(config.mcp.servers, new TokenVault(deps.store, deps.stateKey), config.mcp.publicUrl, logger);
  // Stdio servers start from the executor's own sandbox plan, as its runs do.
  const questions = new McpQuestions({ store: deps.store, audit: deps.audit, logger, stateKey: deps.stateKey });
  const connections = new McpConnections({
    launcher: { start: (spec) => deps.executor.startService(spec) },
    logger,
    timeoutMs: config.mcp.timeoutMs,
    botPaths: botPaths(config),
    authProvider: (server, personId) => signIns.provider(server, personId),
    onQuestion: routeQuestion(questions, logger),
  });
  const tasks = new McpTasks({ config, store: deps.store, connections, logger, questions });
  const tools = new McpTools({
    tasks,
    settings: config.mcp,
    budgetChars: config.agent.mcpToolBudgetChars,
    connections,
    approvals: deps.approvals,
    grants: deps.grants,
    audit: deps.audit,
    logger,
    signIns,
    ourToolNames: deps.ourToolNames,
  });
  const personal = config.mcp.servers.filter((server) => server.type !== 'stdio' && Object.keys(server.headers).length === 0);
  const skills = new ServerSkillCatalog({ tools, root: path.resolve(config.mcp.skillsDir), logger, indexFolder: deps.indexFolder });
  return {
    tools,
    skills,
    connections,
    signIns,
    tasks,
    questions,
    accounts: (personId) => Promise.all(personal.map(async (server) => ({ server: server.name, connected: await signIns.connected(server.name, personId) }))),
    async disconnect(name, personId) {
      const server = personal.find((entry) => entry.name === name);
      if (server === undefined) return false;
      const had = await signIns.disconnect(server.name, personId);
      // Other instances' connections read the (now empty) tokens on their next request and meet a 401 there.
      await connections.reset(server, personId);
      logger.info({ server: server.name, personId, had }, 'MCP sign-in removed');
      return had;
    },
    close: async () => {
      tasks.stop();
      await connections.close();
    },
  };
}
