// Routines and follow-ups: adding, listing, pausing, resuming, removing, with who may change what.
import { randomBytes } from 'node:crypto';
import { logRoutineDecision } from './decisionLog.ts';
import type { Logger } from '../ops/log.ts';
import type { RoutineBook } from './book.ts';
import type { Clock } from './clock.ts';
import type { LastRun, Routine } from './records.ts';
import { nextTick, parseWhen } from './when.ts';

export type Change = 'pause' | 'resume' | 'remove';
export type Result<T> = { ok: true; value: T } | { ok: false; error: string };

/** A routine as `list` shows it. */
export interface RoutineView {
  routine: Routine;
  next?: number;
  last?: LastRun;
}

export interface RoutineRulesDeps {
  book: RoutineBook;
  clock: Clock;
  /** The operator's top-level `admins`: they may change anyone's routine. */
  admins: readonly string[];
  timezoneOf(worldId: string): string;
  followupsPerChat: number;
  logger: Logger;
  /** Revokes the routine's "yes for this routine" grants (Grants.revoke of routineGrantChat(id)): they die with it. */
  forgetGrants?(routineId: string): Promise<unknown>;
}

/** Short, readable ids people type: `r-` and 8 hex digits (routines), `f-` (follow-ups). */
export function newId(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

const CHANGED: Record<Change, string> = { pause: 'routine_paused', resume: 'routine_resumed', remove: 'routine_removed' };

/** Bounds on what a person or the model may keep. */
const MAX_INSTRUCTIONS = 4_000;
const MAX_PER_WORLD = 200;

export class RoutineRules {
  constructor(private readonly deps: RoutineRulesDeps) {}

  async add(worldId: string, owner: string, when: string, instructions: string): Promise<Result<RoutineView>> {
    const text = instructions.trim();
    if (text === '') return { ok: false, error: 'A routine needs instructions after `::`.' };
    if (worldId.startsWith('terminal:')) return { ok: false, error: 'Routines run in Slack and Discord channels, not in the terminal chat.' };
    if (text.length > MAX_INSTRUCTIONS) return { ok: false, error: `Instructions are limited to ${MAX_INSTRUCTIONS} characters.` };
    const now = this.deps.clock();
    const parsed = parseWhen(when, this.deps.timezoneOf(worldId), now);
    if (!parsed.ok) return parsed;
    const routine: Routine = { id: newId('r'), kind: 'routine', worldId, owner, when: when.trim(), schedule: parsed.schedule, instructions: text, paused: false, createdAt: now };
    const added = await this.deps.book.update((book) => {
      if (book.routines.filter((each) => each.worldId === worldId).length >= MAX_PER_WORLD) return { result: false };
      return { book: { ...book, routines: [...book.routines, routine] }, result: true };
    });
    if (!added) return { ok: false, error: `This channel has ${MAX_PER_WORLD} routines already; remove one first.` };
    this.logChange('routine_added', routine, owner);
    return { ok: true, value: { routine, ...this.nextOf(routine, now) } };
  }

  /** A follow-up into the chat: one turn, `when` from now (the next moment of a repeating WHEN). */
  async followUp(turn: { worldId: string; chatId: string; requesterId: string }, when: string, note: string): Promise<Result<RoutineView>> {
    const now = this.deps.clock();
    const parsed = parseWhen(when, this.deps.timezoneOf(turn.worldId), now);
    if (!parsed.ok) return parsed;
    const at = nextTick(parsed.schedule, now);
    if (at === undefined) return { ok: false, error: `"${when}" has no moment in the future.` };
    const routine: Routine = {
      id: newId('f'),
      kind: 'followup',
      worldId: turn.worldId,
      owner: turn.requesterId,
      when: when.trim(),
      schedule: { kind: 'once', at },
      instructions: note.trim().slice(0, MAX_INSTRUCTIONS),
      paused: false,
      createdAt: now,
      chatId: turn.chatId,
    };
    const limit = this.deps.followupsPerChat;
    const added = await this.deps.book.update((book) => {
      if (book.routines.filter((each) => each.chatId === turn.chatId).length >= limit) return { result: false };
      return { book: { ...book, routines: [...book.routines, routine] }, result: true };
    });
    if (!added) return { ok: false, error: `This thread has ${limit} follow-ups pending already (the most it may have); one must run or be removed first.` };
    this.logChange('followup_added', routine, turn.requesterId);
    return { ok: true, value: { routine, next: at } };
  }

  /** The world's routines and follow-ups, each with its next run and its last result. */
  async list(worldId: string | undefined): Promise<RoutineView[]> {
    const { routines } = await this.deps.book.read();
    const now = this.deps.clock();
    const mine = routines.filter((routine) => worldId === undefined || routine.worldId === worldId);
    return Promise.all(
      mine.map(async (routine) => {
        const last = await this.deps.book.lastRun(routine.id);
        return { routine, ...this.nextOf(routine, now), ...(last ? { last } : {}) };
      }),
    );
  }

  /** Pause, resume or remove: only its owner and the operator's admins may (anyone else is told so). */
  async change(worldId: string | undefined, id: string, by: string, change: Change): Promise<Result<Routine>> {
    const outcome = await this.deps.book.update((book): { book?: typeof book; result: Result<Routine> } => {
      const routine = book.routines.find((each) => each.id === id && (worldId === undefined || each.worldId === worldId));
      if (!routine) return { result: { ok: false, error: `No routine \`${id}\` here. \`/routine list\` shows them.` } };
      if (routine.owner !== by && !this.deps.admins.includes(by)) {
        return { result: { ok: false, error: `Only <@${routine.owner}> (its owner) or an admin may ${change} routine \`${id}\`.` } };
      }
      const routines = change === 'remove'
        ? book.routines.filter((each) => each.id !== id)
        : book.routines.map((each) => (each.id === id ? { ...each, paused: change === 'pause' } : each));
      return { book: { ...book, routines }, result: { ok: true, value: routine } };
    });
    if (outcome.ok) {
      this.logChange(CHANGED[change], outcome.value, by);
      if (change === 'remove') {
        await this.deps.book.forget(id).catch(() => undefined);
        await this.forgetGrants(id);
      }
    } else this.deps.logger.info({ decision: 'routine_change_refused', id, by, change }, 'routine decision');
    return outcome;
  }

  /** A store failure here is logged, not the person's: the grants still lapse at their TTL. */
  private async forgetGrants(id: string): Promise<void> {
    await this.deps.forgetGrants?.(id).catch((error: unknown) => this.deps.logger.warn({ err: error, id }, "revoking a removed routine's grants failed"));
  }

  private nextOf(routine: Routine, now: number): { next?: number } {
    const next = routine.paused ? undefined : nextTick(routine.schedule, now);
    return next === undefined ? {} : { next };
  }

  private logChange(decision: string, routine: Routine, by: string): void {
    logRoutineDecision(this.deps.logger, { decision, id: routine.id, kind: routine.kind, worldId: routine.worldId, by, ...(routine.chatId ? { chatId: routine.chatId } : {}) });
  }
}
