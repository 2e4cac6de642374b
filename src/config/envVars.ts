// Reading one environment variable: empty means unset, and a bad value is one line naming the variable.

/** A config mistake: one line that names the variable or field and says the fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const optional = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

export function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}"); see .env.example.`);
  }
  return value;
}

export function urlVar(env: NodeJS.ProcessEnv, name: string): string | undefined {
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

export function choiceVar<T extends string>(env: NodeJS.ProcessEnv, name: string, choices: readonly T[], fallback: T): T {
  const raw = optional(env[name]);
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if (!(choices as readonly string[]).includes(value)) {
    throw new ConfigError(`${name} must be one of ${choices.join(', ')} (got "${raw}"); see .env.example.`);
  }
  return value as T;
}
