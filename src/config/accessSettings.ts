// Who may use the bot in a world, how much one person may ask of it, and which bots may start turns
// (docs/contract.md, "Who may use the bot, limits, credentials"): the settings, validated at the edge.
import { z } from 'zod';

const allowDeny = z.enum(['allow', 'deny']);
const ids = z.array(z.string().min(1));

export const accessSchema = z
  .object({
    users: ids.optional(),
    groups: ids.optional(),
    guests: allowDeny.optional(),
    external: allowDeny.optional(),
    dms: allowDeny.optional(),
  })
  .strict();

export const limitsSchema = z
  .object({
    turnsPerPersonPerHour: z.number().int().positive().optional(),
    tokensPerPersonPerDay: z.number().int().positive().optional(),
  })
  .strict();

export const botsSchema = z
  .object({
    allow: ids.optional(),
    maxTurnsPerMinute: z.number().int().positive().optional(),
    cooldownS: z.number().int().positive().optional(),
  })
  .strict();

/** Who may use the bot in a world. `users`/`groups` empty: everyone in the channel (the people rules still apply). */
export interface AccessSettings {
  users: string[];
  groups: string[];
  guests: 'allow' | 'deny';
  external: 'allow' | 'deny';
  dms: 'allow' | 'deny';
}

/** Per person, per world; absent: no bound. */
export interface LimitSettings {
  turnsPerPersonPerHour?: number;
  tokensPerPersonPerDay?: number;
}

export interface BotSettings {
  /** Bot ids (Slack `B…`), bot user ids (Slack `U…`) or Discord user ids whose messages start turns. */
  allow: string[];
  maxTurnsPerMinute: number;
  cooldownS: number;
}

type AccessInput = z.infer<typeof accessSchema>;
type LimitsInput = z.infer<typeof limitsSchema>;
type BotsInput = z.infer<typeof botsSchema>;

/** Defaults: today's behaviour (everyone allowed, no limits, no bot). */
export function accessSettings(own: AccessInput | undefined, base?: AccessSettings): AccessSettings {
  return {
    users: own?.users ?? base?.users ?? [],
    groups: own?.groups ?? base?.groups ?? [],
    guests: own?.guests ?? base?.guests ?? 'allow',
    external: own?.external ?? base?.external ?? 'allow',
    dms: own?.dms ?? base?.dms ?? 'allow',
  };
}

export function limitSettings(own: LimitsInput | undefined, base?: LimitSettings): LimitSettings {
  const turns = own?.turnsPerPersonPerHour ?? base?.turnsPerPersonPerHour;
  const tokens = own?.tokensPerPersonPerDay ?? base?.tokensPerPersonPerDay;
  return { ...(turns === undefined ? {} : { turnsPerPersonPerHour: turns }), ...(tokens === undefined ? {} : { tokensPerPersonPerDay: tokens }) };
}

export function botSettings(own: BotsInput | undefined, base?: BotSettings): BotSettings {
  return {
    allow: own?.allow ?? base?.allow ?? [],
    maxTurnsPerMinute: own?.maxTurnsPerMinute ?? base?.maxTurnsPerMinute ?? 20,
    cooldownS: own?.cooldownS ?? base?.cooldownS ?? 60,
  };
}

/** The three settings as a world's entry in SKILLBOT_CONFIG holds them (each field over `defaults`). */
export interface WorldAccessInput {
  access?: AccessInput;
  limits?: LimitsInput;
  bots?: BotsInput;
}
