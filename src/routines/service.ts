// Routines, follow-ups and webhooks for one process: the book, the rules, the scheduler, the hook endpoint.
import type { AuditLog } from '../approvals/index.ts';
import type { Config } from '../config/config.ts';
import { parseWorldId } from '../chats/ids.ts';
import type { IncomingMessage, PlatformPort } from '../platform/port.ts';
import type { Logger } from '../ops/log.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Store } from '../store/types.ts';
import type { RoutineBook } from './book.ts';
import { type Clock, localTime } from './clock.ts';
import { type CommandPlace, hookCommand, routineCommand } from './commands.ts';
import { hookHandler } from './hookEndpoint.ts';
import { HookRules } from './hooks.ts';
import type { Routine } from './records.ts';
import type { RoutineRules } from './routines.ts';
import { rootText, type RoutineAccept } from './runs.ts';
import { Scheduler } from './scheduler.ts';

export interface RoutineServiceDeps {
  config: Config;
  store: Store;
  book: RoutineBook;
  rules: RoutineRules;
  clock: Clock;
  instanceId: string;
  stateKey: Buffer;
  audit: AuditLog;
  /** The dispatcher's accept behind the owner's access and limits (`denied`: the owner was told privately). */
  accept(message: IncomingMessage, keys: string[]): Promise<RoutineAccept>;
  port(platform: string): PlatformPort | undefined;
  logger: Logger;
  metrics?: Metrics;
}

/** A tick's claim outlives the grace window (in real time, whatever the clock's speed) by two days. */
const CLAIM_MARGIN_MS = 2 * 24 * 3_600_000;

export class RoutineService {
  readonly hooks: HookRules;
  readonly scheduler: Scheduler;

  constructor(private readonly deps: RoutineServiceDeps) {
    const settings = deps.config.routines;
    this.hooks = new HookRules({ book: deps.book, stateKey: deps.stateKey, publicUrl: deps.config.mcp.publicUrl, admins: deps.config.admins, port: deps.port, logger: deps.logger });
    this.scheduler = new Scheduler({
      ...deps,
      tickMs: settings.tickMs,
      graceMs: settings.graceMs,
      claimTtlMs: settings.graceMs + CLAIM_MARGIN_MS,
      noteSkipped: (routine, tick, lastChatId) => this.noteSkipped(routine, tick, lastChatId),
    });
  }

  get rules(): RoutineRules {
    return this.deps.rules;
  }

  /** Starts the scheduler (after the platforms: its runs post through their ports). */
  start(): Promise<void> {
    return this.scheduler.start();
  }

  stop(): Promise<void> {
    return this.scheduler.stop();
  }

  routineCommand(place: CommandPlace, text: string): Promise<string> {
    return routineCommand(this.deps.rules, place, text);
  }

  hookCommand(place: CommandPlace, text: string): Promise<string> {
    return hookCommand(this.hooks, place, text);
  }

  /** `POST /hooks/<id>` (mounted on the HTTP listener by `skillbot start`). */
  hookHandler() {
    const settings = this.deps.config.routines;
    return hookHandler({ hooks: this.hooks, accept: this.deps.accept, audit: this.deps.audit, maxBytes: settings.hookMaxBytes, ratePerMinute: settings.hookRatePerMinute, logger: this.deps.logger, ...(this.deps.metrics ? { metrics: this.deps.metrics } : {}) });
  }

  /** A run's turn ended: its status becomes the routine's last result (`list`, App Home). */
  async recordOutcome(message: IncomingMessage, status: string): Promise<void> {
    const origin = message.origin;
    if (origin === undefined || origin.kind === 'hook') return;
    const last = await this.deps.book.lastRun(origin.id);
    if (last) await this.deps.book.setLastRun(origin.id, { ...last, result: status });
  }

  private async noteSkipped(routine: Routine, tick: number, lastChatId: string | undefined): Promise<void> {
    const port = this.deps.port(parseWorldId(routine.worldId).platform);
    const timezone = routine.schedule.kind === 'cron' ? routine.schedule.timezone : 'UTC';
    const note = `Skipped the run of ${localTime(tick, timezone)} ${timezone}: every instance of the bot was down then, longer than the grace window.`;
    const chatId = routine.chatId ?? lastChatId;
    if (chatId !== undefined && port?.postNote) await port.postNote(chatId, note);
    else if (port?.postRoot) await port.postRoot(routine.worldId, `${rootText(routine, tick)}. ${note}`);
    this.deps.logger.info({ decision: 'routine_skipped', id: routine.id, worldId: routine.worldId, tick: new Date(tick).toISOString() }, 'routine decision');
    this.deps.metrics?.routineRuns.inc({ world: routine.worldId, kind: routine.kind, outcome: 'skipped' });
  }
}
