// One run of a routine or follow-up at one tick, exactly once across instances: a store claim per (routine, tick)
// that walks claimed → posted (the thread exists) → done, and the inbox's own dedupe key on the queued turn.
import type { AcceptResult } from '../chats/dispatcher.ts';
import { isInstanceAlive } from '../chats/instanceLiveness.ts';
import { parseWorldId } from '../chats/ids.ts';
import type { IncomingMessage, PlatformPort } from '../platform/port.ts';
import { logRoutineDecision } from './decisionLog.ts';
import type { Logger } from '../ops/log.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Store } from '../store/types.ts';
import type { RoutineBook } from './book.ts';
import { localTime } from './clock.ts';
import type { Routine } from './records.ts';

/** `denied`: the owner may not start work here now (their access or limits); nothing was queued. */
export type RoutineAccept = AcceptResult | 'denied';

export interface RunDeps {
  store: Store;
  book: RoutineBook;
  instanceId: string;
  /** The dispatcher's accept: the run's turn is queued like any message (its key makes a second accept a no-op). */
  accept(message: IncomingMessage, keys: string[]): Promise<RoutineAccept>;
  port(platform: string): PlatformPort | undefined;
  logger: Logger;
  metrics?: Metrics;
  /** How long a tick's claim is kept: longer than the grace window, so a restart never runs a tick twice. */
  claimTtlMs: number;
}

interface TickClaim {
  /** `claimed:<instance>`, `posted:<instance>` (with chatId) or `done`. */
  status: string;
  chatId?: string;
}

export type RunOutcome = 'started' | 'denied' | 'elsewhere' | 'failed';

export const tickKey = (routine: Routine, tick: number) => `routine-tick:${routine.id}:${tick}`;

/** What the run's turn is asked: the owner's own instructions, said to be a scheduled run. */
function runText(routine: Routine, tick: number): string {
  const timezone = routine.schedule.kind === 'cron' ? routine.schedule.timezone : 'UTC';
  if (routine.kind === 'followup') {
    return `(A follow-up you scheduled earlier in this thread, due ${localTime(tick, timezone)} ${timezone}.) Your note: ${routine.instructions}`;
  }
  return `(Scheduled run of routine ${routine.id}, "${routine.when}", due ${localTime(tick, timezone)} ${timezone}.) ${routine.instructions}`;
}

/** The root message a routine's run posts: it names the routine and the tick. */
export function rootText(routine: Routine, tick: number): string {
  const timezone = routine.schedule.kind === 'cron' ? routine.schedule.timezone : 'UTC';
  return `Routine ${routine.id} (${routine.when}): run of ${localTime(tick, timezone)} ${timezone}`;
}

/**
 * Runs `routine` at `tick` unless another instance does: takes the tick's claim (or takes over one whose instance
 * died), posts the root message once (its chat id kept in the claim, so a takeover reuses it), queues the turn.
 */
export async function runAtTick(deps: RunDeps, routine: Routine, tick: number, claim?: TickClaim): Promise<RunOutcome> {
  const key = tickKey(routine, tick);
  const mine = `claimed:${deps.instanceId}`;
  let chatId = claim?.chatId ?? routine.chatId;
  if (claim === undefined) {
    if (!(await deps.store.claim('dedupe', key, { status: mine }, deps.claimTtlMs))) return 'elsewhere';
  } else if (!(await deps.store.compareAndSet<TickClaim>('dedupe', key, claim.status, { status: mine, ...(chatId ? { chatId } : {}) }))) {
    return 'elsewhere';
  }
  const log = deps.logger.child({ routine: routine.id, tick: new Date(tick).toISOString() });
  try {
    const { platform } = parseWorldId(routine.worldId);
    const port = deps.port(platform);
    if (chatId === undefined) {
      if (!port?.postRoot) throw new Error(`this instance cannot post in ${platform}`);
      chatId = await port.postRoot(routine.worldId, rootText(routine, tick));
      await deps.store.compareAndSet<TickClaim>('dedupe', key, mine, { status: `posted:${deps.instanceId}`, chatId });
    }
    const message: IncomingMessage = { worldId: routine.worldId, chatId, userId: routine.owner, text: runText(routine, tick), origin: { kind: routine.kind, id: routine.id } };
    const accepted = await deps.accept(message, [`routine-run:${routine.id}:${tick}`]);
    if (accepted === 'refused') throw new Error('the store did not take the run');
    await deps.store.set('dedupe', key, { status: 'done', chatId } satisfies TickClaim, deps.claimTtlMs);
    if (accepted === 'denied') {
      // The owner was told privately why; the tick is settled (a refusal is not retried).
      await deps.book.setLastRun(routine.id, { tick, at: Date.now(), chatId, result: 'refused (the owner\'s access or limits)' });
      logRoutineDecision(log, { decision: 'routine_refused', id: routine.id, kind: routine.kind, worldId: routine.worldId, by: routine.owner, chatId, tick });
      deps.metrics?.routineRuns.inc({ world: routine.worldId, kind: routine.kind, outcome: 'denied' });
      return 'denied';
    }
    await deps.book.setLastRun(routine.id, { tick, at: Date.now(), chatId, result: 'started' });
    logRoutineDecision(log, { decision: 'routine_run', id: routine.id, kind: routine.kind, worldId: routine.worldId, by: routine.owner, chatId, tick });
    deps.metrics?.routineRuns.inc({ world: routine.worldId, kind: routine.kind, outcome: 'started' });
    return 'started';
  } catch (error) {
    // The claim stays: another instance takes it over once this one is gone, or this one's next scan retries it.
    log.warn({ err: error }, 'starting a routine run failed; it is tried again');
    deps.metrics?.routineRuns.inc({ world: routine.worldId, kind: routine.kind, outcome: 'failed' });
    return 'failed';
  }
}

/**
 * A tick another instance claimed: done, still in that instance's hands (alive), or left behind by a dead or
 * failed instance (then taken over here). Read only for ticks whose claim has stood a while (the scheduler).
 */
export async function recoverTick(deps: RunDeps, routine: Routine, tick: number): Promise<RunOutcome | 'done'> {
  const claim = await deps.store.get<TickClaim>('dedupe', tickKey(routine, tick));
  if (claim === undefined) return runAtTick(deps, routine, tick);
  if (claim.status === 'done') return 'done';
  const holder = claim.status.slice(claim.status.indexOf(':') + 1);
  if (holder !== deps.instanceId && (await isInstanceAlive(deps.store, holder))) return 'elsewhere';
  return runAtTick(deps, routine, tick, claim);
}
