import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** A config mistake: one line that names the variable or field and says the fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** Settings that hang on a world (DESIGN.md: which skills, who approves). */
export interface WorldSettings {
  /** Skill ids this world may use; `['*']` means all. */
  skills: string[];
  /** Platform user ids who may answer any approval in this world, beside the requester. */
  approvers: string[];
  approvalTimeoutMs: number;
  /** Variables passed to a skill's processes, by skill id (nothing else of the bot's environment is). */
  env: Record<string, Record<string, string>>;
}

export interface AgentSettings {
  maxToolRounds: number;
  historyTokens: number;
  maxTokens: number;
  grantTtlMs: number;
  maxTriggeredSkills: number;
  catalogBudgetChars: number;
}

export interface Config {
  model: string;
  anthropic: { apiKey?: string; baseUrl?: string };
  skillsDirs: string[];
  storeUrl: string;
  port: number;
  host: string;
  slack: { botToken?: string; signingSecret?: string; appToken?: string; apiUrl?: string };
  discord: { token?: string; guildId?: string; apiUrl?: string };
  approvalTimeoutMs: number;
  scriptTimeoutMs: number;
  agent: AgentSettings;
  defaults: WorldSettings;
  worlds: Record<string, Partial<WorldSettings>>;
  /** Where the settings came from, for messages. */
  configFile?: string;
}

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name like API_REGION');
const worldSchema = z
  .object({
    skills: z.array(z.string().min(1)).optional(),
    approvers: z.array(z.string().min(1)).optional(),
    approvalTimeoutMs: z.number().int().positive().optional(),
    env: z.record(z.string(), z.record(envName, z.string())).optional(),
  })
  .strict();

const fileSchema = z
  .object({
    defaults: worldSchema.optional(),
    worlds: z.record(z.string().regex(/^(slack|discord|terminal):\S+$/, 'must be a world id like slack:T123:C456'), worldSchema).optional(),
    agent: z
      .object({
        maxToolRounds: z.number().int().min(1).max(100).optional(),
        historyTokens: z.number().int().min(1000).optional(),
        maxTokens: z.number().int().min(1).optional(),
        grantTtlMs: z.number().int().positive().optional(),
        maxTriggeredSkills: z.number().int().min(0).max(20).optional(),
        catalogBudgetChars: z.number().int().min(200).optional(),
      })
      .strict()
      .optional(),
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

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}"); see .env.example.`);
  }
  return value;
}

function urlVar(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL (got "${raw}"); see .env.example.`);
  }
  return raw.replace(/\/+$/, '');
}

const optional = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

/** Reads the environment (and SKILLBOT_CONFIG, when set) once, and validates everything. Throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const configFile = optional(env.SKILLBOT_CONFIG);
  const file = configFile ? loadFile(configFile) : {};
  const approvalTimeoutMs = intVar(env, 'APPROVAL_TIMEOUT_MS', 600_000, 1, 86_400_000);
  const skillsDirs = (optional(env.SKILLS_DIRS) ?? './skills').split(':').filter((dir) => dir.trim() !== '');
  const storeUrl = optional(env.STORE_URL) ?? 'sqlite://./data/skillbot.sqlite';
  if (!/^(sqlite:\/\/.+|redis:\/\/.+|rediss:\/\/.+|memory:\/\/)$/.test(storeUrl)) {
    throw new ConfigError(`STORE_URL must be sqlite://PATH, redis://HOST:PORT or memory:// (got "${storeUrl}").`);
  }
  return {
    model: optional(env.SKILLBOT_MODEL) ?? DEFAULT_MODEL,
    anthropic: { apiKey: optional(env.ANTHROPIC_API_KEY), baseUrl: urlVar(env, 'ANTHROPIC_BASE_URL') },
    skillsDirs: skillsDirs.length > 0 ? skillsDirs : ['./skills'],
    storeUrl,
    port: intVar(env, 'PORT', 3000, 0, 65_535),
    host: optional(env.HOST) ?? '0.0.0.0',
    slack: {
      botToken: optional(env.SLACK_BOT_TOKEN),
      signingSecret: optional(env.SLACK_SIGNING_SECRET),
      appToken: optional(env.SLACK_APP_TOKEN),
      apiUrl: urlVar(env, 'SLACK_API_URL'),
    },
    discord: { token: optional(env.DISCORD_TOKEN), guildId: optional(env.DISCORD_GUILD_ID), apiUrl: urlVar(env, 'DISCORD_API_URL') },
    approvalTimeoutMs,
    scriptTimeoutMs: intVar(env, 'SCRIPT_TIMEOUT_MS', 30_000, 100, 3_600_000),
    agent: {
      maxToolRounds: file.agent?.maxToolRounds ?? 16,
      historyTokens: file.agent?.historyTokens ?? 60_000,
      maxTokens: file.agent?.maxTokens ?? 4096,
      grantTtlMs: file.agent?.grantTtlMs ?? 86_400_000,
      maxTriggeredSkills: file.agent?.maxTriggeredSkills ?? 3,
      catalogBudgetChars: file.agent?.catalogBudgetChars ?? 40_000,
    },
    defaults: {
      skills: file.defaults?.skills ?? ['*'],
      approvers: file.defaults?.approvers ?? [],
      approvalTimeoutMs: file.defaults?.approvalTimeoutMs ?? approvalTimeoutMs,
      env: file.defaults?.env ?? {},
    },
    worlds: file.worlds ?? {},
    configFile,
  };
}

/** The settings of one world: its own entry over the defaults. */
export function worldSettings(config: Config, worldId: string): WorldSettings {
  const own = config.worlds[worldId] ?? {};
  return {
    skills: own.skills ?? config.defaults.skills,
    approvers: [...config.defaults.approvers, ...(own.approvers ?? [])],
    approvalTimeoutMs: own.approvalTimeoutMs ?? config.defaults.approvalTimeoutMs,
    env: { ...config.defaults.env, ...own.env },
  };
}

/** Whether a world may use a skill. */
export function worldAllowsSkill(settings: WorldSettings, skillId: string): boolean {
  return settings.skills.includes('*') || settings.skills.includes(skillId);
}
