// What the load-and-fault run does, from a few LOAD_* variables (defaults are the numbers).
import { RETRY_SCHEDULES, type RetrySchedule } from './slackTraffic.ts';

export interface LoadSettings {
  chats: number;
  turnsPerChat: number;
  /** Chats talking at the same time. */
  concurrency: number;
  /** Channels the chats are spread over (each chat is a thread in one of them). */
  channels: number;
  /** Share of chats that ask for the script skill twice (messages 3 and 7): 25% of chats = 5% of messages. */
  scriptChatEvery: number;
  modelFaultRate: number;
  slackRateLimitRate: number;
  seed: number;
  /** SIGKILL instance A once this many messages have their final reply. */
  killAfterAnswered: number;
  /** How long A stays dead before it is started again. */
  restartAfterMs: number;
  /** The whole run stops after this, reporting what is missing. */
  timeLimitMs: number;
  /** One message waits this long for its reply before its chat gives up on it (a takeover needs a few seconds). */
  replyTimeoutMs: number;
  /** A dedicated Redis database; it is flushed at the start and the end. */
  redisUrl: string;
  /** How the platform retries a delivery that was not answered 200 (LOAD_RETRY_SCHEDULE). */
  retrySchedule: RetrySchedule;
  /** Failover (kill → first answer of each of the dead instance's chats) p99 must stay within this. */
  failoverP99Ms: number;
  /** Heap after a forced GC is read from each instance every this many answered turns (0: never). */
  heapEvery: number;
  /** Also write a heap snapshot at each heap sample (LOAD_HEAP_SNAPSHOTS=1), into the run's logs folder. */
  heapSnapshots: boolean;
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  return value;
}

/** The database number of a redis:// URL; db 0 is refused, since the run flushes it. */
export function redisDbOf(url: string): number {
  const match = /^redis:\/\/[^/]+\/(\d+)$/.exec(url);
  const db = match ? Number(match[1]) : 0;
  if (db === 0) throw new Error(`LOAD_REDIS_URL must name a dedicated database other than 0, e.g. redis://127.0.0.1:6379/9 (got "${url}"): the run flushes it`);
  return db;
}

export function loadSettings(env: NodeJS.ProcessEnv): LoadSettings {
  const chats = whole(env, 'LOAD_CHATS', 100, 2, 10_000);
  const turnsPerChat = whole(env, 'LOAD_TURNS', 10, 8, 100);
  const redisUrl = env.LOAD_REDIS_URL ?? 'redis://127.0.0.1:6379/9';
  redisDbOf(redisUrl);
  const retrySchedule = env.LOAD_RETRY_SCHEDULE || 'slack';
  if (!(retrySchedule in RETRY_SCHEDULES)) throw new Error(`LOAD_RETRY_SCHEDULE must be one of ${Object.keys(RETRY_SCHEDULES).join(', ')} (got "${retrySchedule}")`);
  return {
    chats,
    turnsPerChat,
    concurrency: whole(env, 'LOAD_CONCURRENCY', 25, 1, 1_000),
    channels: 10,
    scriptChatEvery: 4,
    modelFaultRate: 0.05,
    slackRateLimitRate: 0.02,
    seed: whole(env, 'LOAD_SEED', 8, 1, 2 ** 31 - 1),
    killAfterAnswered: Math.round(chats * turnsPerChat * 0.4),
    restartAfterMs: 3_000,
    timeLimitMs: whole(env, 'LOAD_TIME_LIMIT_S', 300, 30, 4 * 3_600) * 1000,
    replyTimeoutMs: 60_000,
    redisUrl,
    retrySchedule: retrySchedule as RetrySchedule,
    failoverP99Ms: 5_000,
    // A soak (tens of thousands of turns) samples every few thousand; a short run a handful of times.
    heapEvery: whole(env, 'LOAD_HEAP_EVERY', Math.max(100, Math.round((chats * turnsPerChat) / 10)), 0, 1_000_000),
    heapSnapshots: env.LOAD_HEAP_SNAPSHOTS === '1',
  };
}
