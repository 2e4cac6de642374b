import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { choiceVar, ConfigError, intVar, optional, urlVar } from './envVars.ts';
import { type AnthropicSettings, anthropicSettings } from './modelProvider.ts';
import { type InstallSettings, installSchema, installSettings } from './installSettings.ts';
import { type SandboxSettings, sandboxSettings, type WorkspaceSettings, workspaceSettings } from './sandboxSettings.ts';
import { worldsWithCredentials } from './credentialsSchema.ts';
import { redactStoreUrl } from './storeUrl.ts';
import { type RoutineSettings, routineSettings } from './routineSettings.ts';
import { type McpSettings, mcpServersSchema, mcpSettings } from './mcpSettings.ts';
import { defaultWorld, type WorldEntry, type WorldSettings, worldSchema } from './worldSettings.ts';

export type { AnthropicSettings } from './modelProvider.ts';
export type { SandboxSettings, WorkspaceSettings } from './sandboxSettings.ts';
export { type WorldSettings, worldAllowsNetwork, worldAllowsSkill, worldSettings } from './worldSettings.ts';

export { ConfigError };

export const DEFAULT_MODEL = 'claude-sonnet-5-5';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface AgentSettings {
  maxToolRounds: number;
  historyTokens: number;
  maxTokens: number;
  grantTtlMs: number;
  maxTriggeredSkills: number;
  catalogBudgetChars: number;
  /** Characters of MCP tool definitions a world gets directly in `tools`; past it, a search tool finds them. */
  mcpToolBudgetChars: number;
}

/** Bounds on the files people send and the files skill scripts make. */
export interface FileLimits {
  /** A file larger than this is not read (FILE_MAX_BYTES). */
  maxBytes: number;
  /** Files read per message; later ones are not (FILES_PER_MESSAGE). */
  maxPerMessage: number;
  /** An output file larger than this is reported, not uploaded (OUTPUT_FILE_MAX_BYTES). */
  maxOutputBytes: number;
  /** Output files uploaded per script run; the rest are reported (OUTPUT_FILES_PER_RUN). */
  maxOutputs: number;
}

/** Bounds on what the bot reads of a conversation it is brought into. */
export interface ContextLimits {
  /** Earlier messages read, the newest (CONTEXT_MESSAGES; 0 turns reading off). */
  maxMessages: number;
  /** Their estimated tokens; older messages beyond are dropped (CONTEXT_TOKENS). */
  maxTokens: number;
}

export interface Config {
  model: string;
  anthropic: AnthropicSettings;
  skillsDirs: string[];
  storeUrl: string;
  port: number;
  host: string;
  /** HOST was given: a listener that defaults to loopback (the terminal chat's sign-in callback) takes it then. */
  hostSet?: boolean;
  /** METRICS_PORT: `/metrics` on a listener of its own (then not on PORT); undefined: on PORT. */
  metricsPort?: number;
  slack: { botToken?: string; signingSecret?: string; appToken?: string; apiUrl?: string };
  discord: { token?: string; guildId?: string; apiUrl?: string };
  approvalTimeoutMs: number;
  scriptTimeoutMs: number;
  sandbox: SandboxSettings;
  workspace: WorkspaceSettings;
  /** OUTPUTS_DIR: where the terminal chat copies the files a run delivers, one folder per chat. */
  outputsDir: string;
  files: FileLimits;
  context: ContextLimits;
  agent: AgentSettings;
  defaults: WorldSettings;
  worlds: Record<string, WorldEntry>;
  install: InstallSettings;
  /** Operator-level people whose installs go to `defaults` (every world). */
  admins: string[];
  logLevel: LogLevel;
  /** Where the settings came from, for messages. */
  configFile?: string;
  /** SKILLBOT_STATE_KEY: the MAC key of grants and approval decisions (see src/keys/stateKey.ts, and src/keys/sealing.ts for what it seals). */
  stateKey?: string;
  /** MCP servers (`mcpServers`), MCP_TIMEOUT_MS and PUBLIC_URL (src/config/mcpSettings.ts). */
  mcp: McpSettings;
  /** Routines, follow-ups and webhooks (src/config/routineSettings.ts). */
  routines: RoutineSettings;
}

const fileSchema = z
  .object({
    defaults: worldSchema.optional(),
    worlds: z.record(z.string().regex(/^(slack|discord|terminal):\S+$/, 'must be a world id like slack:T123:C456'), worldSchema).optional(),
    install: installSchema.optional(),
    admins: z.array(z.string().min(1)).optional(),
    agent: z
      .object({
        maxToolRounds: z.number().int().min(1).max(100).optional(),
        historyTokens: z.number().int().min(1000).optional(),
        maxTokens: z.number().int().min(1).optional(),
        grantTtlMs: z.number().int().positive().optional(),
        maxTriggeredSkills: z.number().int().min(0).max(20).optional(),
        catalogBudgetChars: z.number().int().min(200).optional(),
        mcpToolBudgetChars: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
    mcpServers: mcpServersSchema.optional(),
  })
  .strict();

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  return `${path || '(top level)'}: ${issue.message}`;
}

function loadFile(path: string): z.infer<typeof fileSchema> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`SKILLBOT_CONFIG points at ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text, { schema: 'core' }) ?? {};
  } catch (error) {
    throw new ConfigError(`${path} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConfigError(`${path}: ${first ? describeIssue(first) : 'invalid'}`);
  }
  return parsed.data;
}

/** A leading `~` (alone or before `/`) is the home folder, as a shell would read it in SKILLS_DIRS. */
export function expandHome(dir: string, home: string = homedir()): string {
  const trimmed = dir.trim();
  if (trimmed === '~') return home;
  return trimmed.startsWith('~/') ? `${home}${trimmed.slice(1)}` : trimmed;
}

/**
 * Platform credentials set without their partner: a bot that starts without them answers nobody (under a
 * service manager it would even exit 0), so `start` refuses with these lines, each naming what to set.
 */
export function platformCredentialProblems(config: Config): string[] {
  const { botToken, signingSecret, appToken } = config.slack;
  const problems: string[] = [];
  if (botToken !== undefined && signingSecret === undefined && appToken === undefined) {
    problems.push('SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (HTTP mode) nor SLACK_APP_TOKEN (Socket Mode) is: set one of them (Slack app → Basic Information), or unset SLACK_BOT_TOKEN.');
  }
  if (botToken === undefined && (signingSecret !== undefined || appToken !== undefined)) {
    const set = signingSecret !== undefined ? 'SLACK_SIGNING_SECRET' : 'SLACK_APP_TOKEN';
    problems.push(`${set} is set but SLACK_BOT_TOKEN is not: set it (Slack app → OAuth & Permissions, starts with xoxb-), or unset ${set}.`);
  }
  if (config.discord.token === undefined && config.discord.guildId !== undefined) {
    problems.push('DISCORD_GUILD_ID is set but DISCORD_TOKEN is not: set it (Developer Portal → Bot → Reset Token), or unset DISCORD_GUILD_ID.');
  }
  return problems;
}

/** The agent's bounds (`agent:` in the config file), each at its default when unset. */
function agentSettings(given: z.infer<typeof fileSchema>['agent']): AgentSettings {
  return {
    maxToolRounds: given?.maxToolRounds ?? 16,
    historyTokens: given?.historyTokens ?? 60_000,
    maxTokens: given?.maxTokens ?? 4096,
    grantTtlMs: given?.grantTtlMs ?? 86_400_000,
    maxTriggeredSkills: given?.maxTriggeredSkills ?? 3,
    catalogBudgetChars: given?.catalogBudgetChars ?? 40_000,
    mcpToolBudgetChars: given?.mcpToolBudgetChars ?? 20_000,
  };
}

function fileLimits(env: NodeJS.ProcessEnv): FileLimits {
  return {
    maxBytes: intVar(env, 'FILE_MAX_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    maxPerMessage: intVar(env, 'FILES_PER_MESSAGE', 5, 0, 100),
    maxOutputBytes: intVar(env, 'OUTPUT_FILE_MAX_BYTES', 20 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    maxOutputs: intVar(env, 'OUTPUT_FILES_PER_RUN', 5, 0, 100),
  };
}

function contextLimits(env: NodeJS.ProcessEnv): ContextLimits {
  return { maxMessages: intVar(env, 'CONTEXT_MESSAGES', 50, 0, 1000), maxTokens: intVar(env, 'CONTEXT_TOKENS', 4000, 100, 200_000) };
}

/** Reads the environment (and SKILLBOT_CONFIG, when set) once, and validates everything. Throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const configFile = optional(env.SKILLBOT_CONFIG);
  const file = configFile ? loadFile(configFile) : {};
  const approvalTimeoutMs = intVar(env, 'APPROVAL_TIMEOUT_MS', 600_000, 1, 86_400_000);
  const skillsDirs = (optional(env.SKILLS_DIRS) ?? './skills')
    .split(':')
    .filter((dir) => dir.trim() !== '')
    .map((dir) => expandHome(dir, optional(env.HOME) ?? homedir()));
  const storeUrl = optional(env.STORE_URL) ?? 'sqlite://./data/skillbot.sqlite';
  if (!/^(sqlite:\/\/.+|redis:\/\/.+|rediss:\/\/.+|memory:\/\/)$/.test(storeUrl)) {
    throw new ConfigError(`STORE_URL must be sqlite://PATH, redis://HOST:PORT or memory:// (got "${redactStoreUrl(storeUrl)}").`);
  }
  const stateKey = optional(env.SKILLBOT_STATE_KEY);
  if (stateKey !== undefined && stateKey.length < 32) {
    throw new ConfigError(`SKILLBOT_STATE_KEY must be at least 32 characters (got ${stateKey.length}); e.g. \`openssl rand -hex 32\`.`);
  }
  return {
    model: optional(env.SKILLBOT_MODEL) ?? DEFAULT_MODEL,
    anthropic: anthropicSettings(env),
    skillsDirs: skillsDirs.length > 0 ? skillsDirs : ['./skills'],
    storeUrl,
    port: intVar(env, 'PORT', 3000, 0, 65_535),
    host: optional(env.HOST) ?? '0.0.0.0',
    hostSet: optional(env.HOST) !== undefined,
    ...(optional(env.METRICS_PORT) === undefined ? {} : { metricsPort: intVar(env, 'METRICS_PORT', 9464, 0, 65_535) }),
    slack: {
      botToken: optional(env.SLACK_BOT_TOKEN),
      signingSecret: optional(env.SLACK_SIGNING_SECRET),
      appToken: optional(env.SLACK_APP_TOKEN),
      apiUrl: urlVar(env, 'SLACK_API_URL'),
    },
    discord: { token: optional(env.DISCORD_TOKEN), guildId: optional(env.DISCORD_GUILD_ID), apiUrl: urlVar(env, 'DISCORD_API_URL') },
    approvalTimeoutMs,
    scriptTimeoutMs: intVar(env, 'SCRIPT_TIMEOUT_MS', 30_000, 100, 3_600_000),
    sandbox: sandboxSettings(env),
    workspace: workspaceSettings(env),
    outputsDir: optional(env.OUTPUTS_DIR) ?? './data/outputs',
    files: fileLimits(env),
    context: contextLimits(env),
    agent: agentSettings(file.agent),
    defaults: defaultWorld(file.defaults, env, approvalTimeoutMs),
    worlds: worldsWithCredentials(file.worlds, env),
    install: installSettings(file.install, env),
    admins: file.admins ?? [],
    logLevel: choiceVar(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    configFile,
    ...(stateKey === undefined ? {} : { stateKey }),
    mcp: mcpSettings(file.mcpServers, env, intVar(env, 'PORT', 3000, 0, 65_535), [
      ['defaults', file.defaults?.mcp],
      ...Object.entries(file.worlds ?? {}).map(([id, world]): [string, string[] | undefined] => [`worlds.${id}`, world.mcp]),
    ]),
    routines: routineSettings(env),
  };
}
