import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { choiceVar, ConfigError, intVar, optional, urlVar } from './envVars.ts';
import { type AnthropicSettings, anthropicSettings } from './modelProvider.ts';
import { type InstallSettings, installSchema, installSettings } from './installSettings.ts';
import { type SandboxSettings, sandboxSettings, type WorkspaceSettings, workspaceSettings } from './sandboxSettings.ts';
import { egressAllowSchema } from './egressAllowSchema.ts';
import { type AccessSettings, accessSchema, accessSettings, type BotSettings, botSettings, botsSchema, type LimitSettings, limitSettings, limitsSchema, type WorldAccessInput } from './accessSettings.ts';
import { type Credential, credentialsSchema, expandCredentials, worldsWithCredentials } from './credentialsSchema.ts';
import { redactStoreUrl } from './storeUrl.ts';
import { type RoutineSettings, routineSettings, timezoneSchema } from './routineSettings.ts';
import { type McpSettings, mcpServersSchema, mcpSettings } from './mcpSettings.ts';

export type { AnthropicSettings, ModelProvider } from './modelProvider.ts';
export type { SandboxSettings, WorkspaceSettings } from './sandboxSettings.ts';

export { ConfigError };

export const DEFAULT_MODEL = 'claude-sonnet-5-5';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Settings that hang on a world (shared/DESIGN.md: which skills, who approves). */
export interface WorldSettings {
  /** Skill ids this world may use; `['*']` means all. */
  skills: string[];
  /** Platform user ids who may answer any approval in this world, beside the requester. */
  approvers: string[];
  approvalTimeoutMs: number;
  /** Variables passed to a skill's processes, by skill id (nothing else of the bot's environment is). */
  env: Record<string, Record<string, string>>;
  /** Skill ids whose processes may reach the network (`bash` for the shell); `['*']` means all. Every other skill process has none. */
  network: string[];
  /**
   * Address ranges (CIDR) or host names the world's networked processes may reach through the egress proxy although
   * not public (`egressAllow`); loopback and the host's own addresses stay refused whatever it says.
   */
  egressAllow: string[];
  /** Whether Claude has the shell (the bash tool) here; `bash: false` turns it off (the tool is not offered). */
  bash: boolean;
  /** Tokens (input, output, cache reads and writes) the world may spend per UTC day; absent: no bound. */
  dailyTokenBudget?: number;
  /** MCP server names this world may use; `['*']` all; default none. */
  mcp: string[];
  /** MCP tools (`mcp__<server>__<tool>` or `mcp__<server>__*`) that run without a question. */
  mcpNoApproval: string[];
  /** Who may approve installing skills here (default: the world's approvers); nobody else, not even the requester. */
  installers: string[];
  /** What the install scanner's findings do: `warn` shows them on the card, `block` refuses the install. */
  installPolicy: 'warn' | 'block';
  /** IANA time zone its routines' WHEN is read in (`timezone`; default UTC). */
  timezone: string;
  /** Skills installed for other worlds only: never usable here, whatever `skills` says. */
  notHere?: readonly string[];
  /** Who may use the bot here (src/access); default everyone. */
  access: AccessSettings;
  /** Turns and tokens per person (src/access); default none. */
  limits: LimitSettings;
  /** Bots whose messages start turns here, and their rate (src/access); default none. */
  bots: BotSettings;
  /** Secrets the egress proxy puts on requests to their hosts; the sandbox holds placeholders (credentialsSchema.ts). */
  credentials: Credential[];
}

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
  worlds: Record<string, Partial<Omit<WorldSettings, keyof WorldAccessInput>> & WorldAccessInput>;
  install: InstallSettings;
  /** Operator-level people whose installs go to `defaults` (every world). */
  admins: string[];
  logLevel: LogLevel;
  /** Where the settings came from, for messages. */
  configFile?: string;
  /** SKILLBOT_STATE_KEY: the MAC key of grants and approval decisions (see src/approvals/stateKey.ts). */
  stateKey?: string;
  /** MCP servers (`mcpServers`), MCP_TIMEOUT_MS and PUBLIC_URL (src/config/mcpSettings.ts). */
  mcp: McpSettings;
  /** Routines, follow-ups and webhooks (src/config/routineSettings.ts). */
  routines: RoutineSettings;
}

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name like API_REGION');
const worldSchema = z
  .object({
    skills: z.array(z.string().min(1)).optional(),
    approvers: z.array(z.string().min(1)).optional(),
    approvalTimeoutMs: z.number().int().positive().optional(),
    env: z.record(z.string(), z.record(envName, z.string())).optional(),
    network: z.array(z.string().min(1)).optional(),
    egressAllow: egressAllowSchema.optional(),
    bash: z.boolean().optional(),
    dailyTokenBudget: z.number().int().positive().optional(),
    mcp: z.array(z.string().min(1)).optional(),
    mcpNoApproval: z.array(z.string().regex(/^mcp__[a-z0-9_-]{1,32}__.+$/, 'must be mcp__<server>__<tool> or mcp__<server>__*')).optional(),
    installers: z.array(z.string().min(1)).optional(),
    installPolicy: z.enum(['warn', 'block']).optional(),
    access: accessSchema.optional(),
    limits: limitsSchema.optional(),
    bots: botsSchema.optional(),
    credentials: credentialsSchema.optional(),
    timezone: timezoneSchema.optional(),
  })
  .strict();

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
    files: {
      maxBytes: intVar(env, 'FILE_MAX_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
      maxPerMessage: intVar(env, 'FILES_PER_MESSAGE', 5, 0, 100),
      maxOutputBytes: intVar(env, 'OUTPUT_FILE_MAX_BYTES', 20 * 1024 * 1024, 1, 1024 * 1024 * 1024),
      maxOutputs: intVar(env, 'OUTPUT_FILES_PER_RUN', 5, 0, 100),
    },
    context: {
      maxMessages: intVar(env, 'CONTEXT_MESSAGES', 50, 0, 1000),
      maxTokens: intVar(env, 'CONTEXT_TOKENS', 4000, 100, 200_000),
    },
    agent: {
      maxToolRounds: file.agent?.maxToolRounds ?? 16,
      historyTokens: file.agent?.historyTokens ?? 60_000,
      maxTokens: file.agent?.maxTokens ?? 4096,
      grantTtlMs: file.agent?.grantTtlMs ?? 86_400_000,
      maxTriggeredSkills: file.agent?.maxTriggeredSkills ?? 3,
      catalogBudgetChars: file.agent?.catalogBudgetChars ?? 40_000,
      mcpToolBudgetChars: file.agent?.mcpToolBudgetChars ?? 20_000,
    },
    defaults: {
      skills: file.defaults?.skills ?? ['*'],
      approvers: file.defaults?.approvers ?? [],
      approvalTimeoutMs: file.defaults?.approvalTimeoutMs ?? approvalTimeoutMs,
      env: file.defaults?.env ?? {},
      network: file.defaults?.network ?? [],
      egressAllow: file.defaults?.egressAllow ?? [],
      bash: file.defaults?.bash ?? true,
      ...(file.defaults?.dailyTokenBudget === undefined ? {} : { dailyTokenBudget: file.defaults.dailyTokenBudget }),
      mcp: file.defaults?.mcp ?? [],
      mcpNoApproval: file.defaults?.mcpNoApproval ?? [],
      installers: file.defaults?.installers ?? file.defaults?.approvers ?? [],
      installPolicy: file.defaults?.installPolicy ?? 'warn',
      access: accessSettings(file.defaults?.access),
      limits: limitSettings(file.defaults?.limits),
      bots: botSettings(file.defaults?.bots),
      credentials: expandCredentials(file.defaults?.credentials, env, 'defaults') ?? [],
      timezone: file.defaults?.timezone ?? 'UTC',
    },
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

/** The settings of one world: its own entry over the defaults. */
export function worldSettings(config: Config, worldId: string): WorldSettings {
  const own = config.worlds[worldId] ?? {};
  const budget = own.dailyTokenBudget ?? config.defaults.dailyTokenBudget;
  return {
    skills: own.skills ?? config.defaults.skills,
    approvers: [...config.defaults.approvers, ...(own.approvers ?? [])],
    approvalTimeoutMs: own.approvalTimeoutMs ?? config.defaults.approvalTimeoutMs,
    env: { ...config.defaults.env, ...own.env },
    network: own.network ?? config.defaults.network,
    egressAllow: own.egressAllow ?? config.defaults.egressAllow,
    bash: own.bash ?? config.defaults.bash,
    ...(budget === undefined ? {} : { dailyTokenBudget: budget }),
    mcp: own.mcp ?? config.defaults.mcp,
    mcpNoApproval: [...config.defaults.mcpNoApproval, ...(own.mcpNoApproval ?? [])],
    // A world's own installers, else its own approvers, else the defaults' installers (which default to theirs).
    installers: own.installers ?? (own.approvers === undefined ? config.defaults.installers : [...config.defaults.installers, ...own.approvers]),
    installPolicy: own.installPolicy ?? config.defaults.installPolicy,
    access: accessSettings(own.access, config.defaults.access),
    limits: limitSettings(own.limits, config.defaults.limits),
    bots: botSettings(own.bots, config.defaults.bots),
    credentials: own.credentials ?? config.defaults.credentials,
    timezone: own.timezone ?? config.defaults.timezone,
  };
}

/** Whether a world lets a skill's processes reach the network. */
export function worldAllowsNetwork(settings: WorldSettings, skillId: string): boolean {
  return settings.network.includes('*') || settings.network.includes(skillId);
}

/** Whether a world may use a skill. */
export function worldAllowsSkill(settings: WorldSettings, skillId: string): boolean {
  if (settings.notHere?.includes(skillId)) return false;
  return settings.skills.includes('*') || settings.skills.includes(skillId);
}
