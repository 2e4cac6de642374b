// The one queue and what each queued message runs (part of createApp, src/app.ts): the turn (the engine gates it
// on the world's daily budget), then the person's tokens and the admins' alerts; routines,
// follow-ups and webhook deliveries enter the same queue as their owner's turns.
import { worldSettings, type Config } from './config/config.ts';
import type { Engine, TurnOutcome } from './agent/engine.ts';
import type { ApprovalRuntime, AuditLog } from './approvals/index.ts';
import type { Access } from './access/access.ts';
import { alertAdmins } from './access/budgetAlerts.ts';
import { Dispatcher, type TurnRunner } from './chats/dispatcher.ts';
import type { DurableQueueOptions } from './chats/durableQueue.ts';
import { parseWorldId } from './chats/ids.ts';
import { isInstanceAlive } from './chats/instanceLiveness.ts';
import type { Logger } from './ops/log.ts';
import type { Metrics } from './ops/metrics.ts';
import { type TokenBudgets, totalTokens } from './chats/tokenBudget.ts';
import type { RoutineBook } from './routines/book.ts';
import type { Clock } from './routines/clock.ts';
import type { RoutineRules } from './routines/routines.ts';
import { RoutineService } from './routines/service.ts';
import type { Store } from './store/types.ts';

interface Base {
  config: Config;
  logger: Logger;
  store: Store;
  metrics: Metrics;
}

export interface TurnParts {
  engine: Engine;
  /** The worlds' daily budgets (the engine gates a turn on them; the admins' alerts read them). */
  budgets: TokenBudgets;
  access: Access;
  approvals: ApprovalRuntime;
  audit: AuditLog;
  instanceId: string;
  stateKey: Buffer;
  routineParts: { book: RoutineBook; clock: Clock; rules: RoutineRules };
  queue?: DurableQueueOptions;
}

/** The dispatcher every platform's messages go through, and the routines that queue turns into it. */
export function queueTurns(base: Base, turnParts: TurnParts): { dispatcher: Dispatcher<TurnOutcome>; routines: RoutineService } {
  const { config, store, logger, metrics } = base;
  const { access, instanceId } = turnParts;
  // The routines record each run's outcome (a turn runs only once both exist).
  const dispatcher: Dispatcher<TurnOutcome> = new Dispatcher<TurnOutcome>({
    store,
    runTurn: budgetedTurn(base, turnParts, (message, status): Promise<void> => routines.recordOutcome(message, status)),
    replies: { store, instanceId: turnParts.approvals.instanceId, isAlive: (id) => isInstanceAlive(store, id) },
    logger,
    onAccepted: (platform, outcome, seconds) => {
      metrics.acceptSeconds.observe({ platform, outcome }, seconds);
      if (outcome === 'duplicate') metrics.dedupeHits.inc({ platform });
    },
    ...(turnParts.queue ? { queue: turnParts.queue } : {}),
  });
  const routines: RoutineService = new RoutineService({
    config,
    store,
    ...turnParts.routineParts,
    instanceId,
    stateKey: turnParts.stateKey,
    audit: turnParts.audit,
    // A run, follow-up or delivery is the owner's turn: their access and limits apply, as if they had asked.
    accept: async (message, keys) => {
      const admission = await access.admitScheduled(message.worldId, message.userId, keys[0] ?? message.chatId);
      if (admission.kind === 'allowed') return dispatcher.accept(message, keys);
      const port = dispatcher.port(parseWorldId(message.worldId).platform);
      await port?.tellPrivately?.(message.chatId, message.userId, admission.note).catch((error: unknown) => logger.warn({ err: error, chatId: message.chatId }, 'telling a routine\'s owner why it did not run failed'));
      return 'denied';
    },
    port: (platform) => dispatcher.port(platform),
    logger: logger.child({ part: 'routines' }),
    metrics,
  });
  return { dispatcher, routines };
}

/** One queued message's turn (the engine holds the world's daily budget gate); its tokens counted for the person, and the admins alerted. */
function budgetedTurn(base: Base, parts: TurnParts, recordOutcome: (message: Parameters<TurnRunner<TurnOutcome>>[0], status: string) => Promise<void>): TurnRunner<TurnOutcome> {
  const { config, store, logger, metrics } = base;
  const { engine, access, budgets } = parts;
  return async (message, sink, turnId, platform) => {
    // What refused people wrote never reaches the model, this turn's context read included.
    const outcome = await engine.runTurn(message, sink, turnId, access.filterContext(platform, message.worldId));
    // Refused at the budget gate (inside the turn): nothing ran, nothing to count.
    if (outcome.status === 'over_budget') return outcome;
    if (message.origin) await recordOutcome(message, outcome.status).catch((error: unknown) => logger.warn({ err: error, turnId }, 'keeping a routine run\'s result failed'));
    // Spend by world and model (the turn counted the world's budget as it closed): the metrics count every token.
    metrics.countTokens(message.worldId, config.model, outcome.usage);
    await access.limits.addTokens(message.worldId, message.userId, turnId, totalTokens(outcome.usage)).catch((error: unknown) => logger.warn({ err: error, worldId: message.worldId }, 'counting the person\'s tokens failed'));
    const budget = worldSettings(config, message.worldId).dailyTokenBudget;
    if (budget !== undefined) {
      await alertAdmins({ store, logger, admins: config.admins, platform }, message.worldId, await budgets.spentToday(message.worldId), budget).catch((error: unknown) =>
        logger.warn({ err: error, worldId: message.worldId }, 'alerting the admins of the budget failed'),
      );
    }
    return outcome;
  };
}
