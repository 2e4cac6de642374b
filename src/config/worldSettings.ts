// One world's settings (`defaults` and `worlds.<id>` in the config file): their schema, the defaults, and a world's
// own entry laid over them.
import { z } from 'zod';
import { type AccessSettings, accessSchema, accessSettings, type BotSettings, botSettings, botsSchema, type LimitSettings, limitSettings, limitsSchema, type WorldAccessInput } from './accessSettings.ts';
import { type Credential, credentialsSchema, expandCredentials } from './credentialsSchema.ts';
import { egressAllowSchema } from './egressAllowSchema.ts';
import { timezoneSchema } from './routineSettings.ts';

/** Settings that hang on a world (docs/contract.md: which skills, who approves). */
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

/** A world's own entry, as the config holds it: only what it sets (access input as given). */
export type WorldEntry = Partial<Omit<WorldSettings, keyof WorldAccessInput>> & WorldAccessInput;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name like API_REGION');
export const worldSchema = z
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

/** The `defaults` entry with every unset setting at its default (`approvalTimeoutMs`: APPROVAL_TIMEOUT_MS's). */
export function defaultWorld(given: z.infer<typeof worldSchema> | undefined, env: NodeJS.ProcessEnv, approvalTimeoutMs: number): WorldSettings {
  return {
    skills: given?.skills ?? ['*'],
    approvers: given?.approvers ?? [],
    approvalTimeoutMs: given?.approvalTimeoutMs ?? approvalTimeoutMs,
    env: given?.env ?? {},
    network: given?.network ?? [],
    egressAllow: given?.egressAllow ?? [],
    bash: given?.bash ?? true,
    ...(given?.dailyTokenBudget === undefined ? {} : { dailyTokenBudget: given.dailyTokenBudget }),
    mcp: given?.mcp ?? [],
    mcpNoApproval: given?.mcpNoApproval ?? [],
    installers: given?.installers ?? given?.approvers ?? [],
    installPolicy: given?.installPolicy ?? 'warn',
    access: accessSettings(given?.access),
    limits: limitSettings(given?.limits),
    bots: botSettings(given?.bots),
    credentials: expandCredentials(given?.credentials, env, 'defaults') ?? [],
    timezone: given?.timezone ?? 'UTC',
  };
}

/** The settings of one world: its own entry over the defaults. */
export function worldSettings(config: { defaults: WorldSettings; worlds: Record<string, WorldEntry> }, worldId: string): WorldSettings {
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
