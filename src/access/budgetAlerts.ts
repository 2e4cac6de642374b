// A world's `dailyTokenBudget` warns the operator's `admins` privately at 75 % and 95 %, once a day each.
import type { Store } from '../store/types.ts';
import type { TurnPlatform } from '../platform/port.ts';
import type { Logger } from '../ops/log.ts';
import { utcDay } from '../chats/tokenBudget.ts';

export const ALERT_PERCENTS = [75, 95] as const;
const KEEP_MS = 2 * 24 * 60 * 60_000;

export function alertText(worldId: string, percent: number, spent: number, budget: number): string {
  return (
    `skillbot: ${worldId} has used ${percent} % of its daily token budget today (${spent.toLocaleString('en-US')} of ` +
    `${budget.toLocaleString('en-US')} tokens). At 100 % it stops answering until 00:00 UTC; \`dailyTokenBudget\` sets the bound.`
  );
}

/**
 * The thresholds the world's spend has reached that no instance has alerted yet today: each is claimed in the
 * store, so one alert goes out per threshold and day whichever instance sees the spend first.
 */
export async function dueAlerts(store: Store, worldId: string, spent: number, budget: number, now: number): Promise<number[]> {
  const due: number[] = [];
  for (const percent of ALERT_PERCENTS) {
    if (spent * 100 < budget * percent) continue;
    const key = `budget-alert:${encodeURIComponent(worldId)}/${utcDay(now)}/${percent}`;
    if (await store.claim('usage', key, { at: now }, KEEP_MS)) due.push(percent);
  }
  return due;
}

export interface AlertDeps {
  store: Store;
  logger: Logger;
  admins: readonly string[];
  /** The world's platform: the DMs go through it (an admin id is a person of that platform). */
  platform: Pick<TurnPlatform, 'directMessage'>;
  now?: () => number;
}

/** After a turn of a world with a budget: DMs each admin for each threshold reached and not yet alerted today. */
export async function alertAdmins(deps: AlertDeps, worldId: string, spent: number, budget: number): Promise<void> {
  if (deps.admins.length === 0) return;
  const now = (deps.now ?? Date.now)();
  for (const percent of await dueAlerts(deps.store, worldId, spent, budget, now)) {
    deps.logger.warn({ worldId, percent, spent, budget }, 'daily token budget alert');
    if (deps.platform.directMessage === undefined) continue;
    for (const admin of deps.admins) {
      await deps.platform.directMessage(admin, alertText(worldId, percent, spent, budget)).catch((error: unknown) => deps.logger.warn({ err: error, admin }, 'a budget alert could not reach an admin'));
    }
  }
}
