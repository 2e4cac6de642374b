// `skillbot routines list|add|remove --world ID`: the operator's view and hands (they act as an admin).
import { parseArgs } from 'node:util';
import { createGrants, routineGrantChat } from '../approvals/index.ts';
import { type Config, worldSettings } from '../config/config.ts';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import { RoutineBook } from './book.ts';
import { schedulerClock } from './clock.ts';
import { hookLine, routineLine } from './commands.ts';
import { RoutineRules } from './routines.ts';

export const ROUTINES_CLI_USAGE = 'usage: skillbot routines list [--world ID] [--json] | add --world ID --owner USER "WHEN :: INSTRUCTIONS" | remove ID [--world ID]';

/** The CLI acts for the operator: as an admin, whoever owns the routine. */
const OPERATOR = 'operator';

export async function runRoutinesCli(args: string[], deps: { config: Config; store: Store; logger: Logger; output: { out(text: string): void; err(text: string): void } }): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { world: { type: 'string' }, owner: { type: 'string' }, json: { type: 'boolean' } } });
  const [sub, ...rest] = positionals;
  const book = new RoutineBook(deps.store);
  const rules = new RoutineRules({
    book,
    clock: schedulerClock(deps.config.routines.clock),
    admins: [...deps.config.admins, OPERATOR],
    timezoneOf: (worldId) => worldSettings(deps.config, worldId).timezone,
    followupsPerChat: deps.config.routines.followupsPerChat,
    logger: deps.logger,
    forgetGrants: (id) => createGrants(deps.store).revoke({ chatId: routineGrantChat(id) }),
  });
  if (sub === 'list') {
    const [views, { hooks }] = await Promise.all([rules.list(values.world), book.read()]);
    const shown = hooks.filter((hook) => values.world === undefined || hook.worldId === values.world);
    if (values.json) {
      deps.output.out(JSON.stringify({ routines: views.map((view) => ({ ...view.routine, next: view.next, last: view.last })), hooks: shown }, null, 2));
      return 0;
    }
    const url = (id: string) => `${deps.config.mcp.publicUrl.replace(/\/+$/, '')}/hooks/${id}`;
    const lines = [...views.map((view) => `${routineLine(view)} · ${view.routine.worldId}`), ...shown.map((hook) => `${hookLine(hook, url(hook.id))} · ${hook.worldId}`)];
    deps.output.out(lines.length === 0 ? 'No routines, follow-ups or hooks.' : lines.join('\n'));
    return 0;
  }
  if (sub === 'add') {
    const text = rest.join(' ');
    const split = text.indexOf('::');
    if (values.world === undefined || values.owner === undefined || split === -1) {
      deps.output.err(`skillbot: ${ROUTINES_CLI_USAGE}`);
      return 2;
    }
    const added = await rules.add(values.world, values.owner, text.slice(0, split), text.slice(split + 2));
    if (!added.ok) {
      deps.output.err(`skillbot: ${added.error}`);
      return 1;
    }
    deps.output.out(`Added ${routineLine(added.value)}`);
    return 0;
  }
  if (sub === 'remove' && rest[0] !== undefined) {
    const removed = await rules.change(values.world, rest[0], OPERATOR, 'remove');
    if (!removed.ok) {
      deps.output.err(`skillbot: ${removed.error}`);
      return 1;
    }
    deps.output.out(`Routine ${rest[0]} removed.`);
    return 0;
  }
  deps.output.err(`skillbot: ${ROUTINES_CLI_USAGE}`);
  return 2;
}
