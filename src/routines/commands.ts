// `/routine …` and `/hook …`, as every surface (Slack, Discord, the CLI) hands them over: text in, private text out.
import { localTime } from './clock.ts';
import type { HookProvider, HookRules } from './hooks.ts';
import type { Hook } from './records.ts';
import type { Change, RoutineRules, RoutineView } from './routines.ts';
import { WHEN_EXAMPLES } from './when.ts';

export interface CommandPlace {
  worldId: string;
  userId: string;
}

export const ROUTINE_USAGE = `Usage: \`/routine add WHEN :: INSTRUCTIONS\`, \`/routine list\`, \`/routine pause|resume|remove ID\`. WHEN: ${WHEN_EXAMPLES}.`;
export const HOOK_USAGE = 'Usage: `/hook add github|generic [event,…] [:: INSTRUCTIONS]`, `/hook list`, `/hook remove ID`.';

const when = (at: number | undefined, timezone: string) => (at === undefined ? 'none' : `${localTime(at, timezone)} ${timezone}`);

function timezoneOf(view: RoutineView): string {
  return view.routine.schedule.kind === 'cron' ? view.routine.schedule.timezone : 'UTC';
}

/** One line per routine: id, schedule, owner, next run, last result. */
export function routineLine(view: RoutineView): string {
  const { routine } = view;
  const tz = timezoneOf(view);
  const kind = routine.kind === 'followup' ? 'follow-up' : 'routine';
  const last = view.last ? `; last: ${view.last.result} (${when(view.last.tick, tz)})` : '';
  const paused = routine.paused ? ' (paused)' : '';
  return `\`${routine.id}\` ${kind} · ${routine.when}${paused} · owner <@${routine.owner}> · next: ${when(view.next, tz)}${last}`;
}

export function hookLine(hook: Hook, url: string): string {
  const events = hook.events.length > 0 ? hook.events.join(', ') : 'every event';
  return `\`${hook.id}\` ${hook.provider} hook · ${events} · owner <@${hook.owner}> · ${url}`;
}

export async function routineCommand(rules: RoutineRules, place: CommandPlace, text: string): Promise<string> {
  const [verb = '', ...rest] = text.trim().split(/\s+/);
  const argument = text.trim().slice(verb.length).trim();
  switch (verb.toLowerCase()) {
    case 'add': {
      const split = argument.indexOf('::');
      if (split === -1) return `A routine needs \`WHEN :: INSTRUCTIONS\`. ${ROUTINE_USAGE}`;
      const added = await rules.add(place.worldId, place.userId, argument.slice(0, split), argument.slice(split + 2));
      return added.ok ? `Added ${routineLine(added.value)}` : added.error;
    }
    case 'list':
    case '': {
      const views = await rules.list(place.worldId);
      return views.length === 0 ? `No routines or follow-ups here. ${ROUTINE_USAGE}` : views.map(routineLine).join('\n');
    }
    case 'pause':
    case 'resume':
    case 'remove': {
      const [id] = rest;
      if (id === undefined) return ROUTINE_USAGE;
      const changed = await rules.change(place.worldId, id, place.userId, verb.toLowerCase() as Change);
      return changed.ok ? `Routine \`${id}\` ${verb.toLowerCase() === 'remove' ? 'removed' : `${verb.toLowerCase()}d`}.` : changed.error;
    }
    default:
      return ROUTINE_USAGE;
  }
}

/** `add github push,check_run :: triage`: the provider, the events, the instructions. */
function parseHookAdd(argument: string): { provider: HookProvider; events: string[]; instructions: string } | undefined {
  const split = argument.indexOf('::');
  const head = (split === -1 ? argument : argument.slice(0, split)).trim();
  const [provider, ...events] = head.split(/[\s,]+/).filter(Boolean);
  if (provider !== 'github' && provider !== 'generic') return undefined;
  if (!events.every((event) => /^[A-Za-z0-9_.:-]{1,64}$/.test(event))) return undefined;
  return { provider, events, instructions: split === -1 ? '' : argument.slice(split + 2).trim() };
}

export async function hookCommand(hooks: HookRules, place: CommandPlace, text: string): Promise<string> {
  const [verb = '', ...rest] = text.trim().split(/\s+/);
  const argument = text.trim().slice(verb.length).trim();
  switch (verb.toLowerCase()) {
    case 'add': {
      const wanted = parseHookAdd(argument);
      if (!wanted) return HOOK_USAGE;
      const added = await hooks.add(place.worldId, place.userId, wanted.provider, wanted.events, wanted.instructions);
      if (!added.ok) return added.error;
      const signature = wanted.provider === 'github' ? 'GitHub signs with it (X-Hub-Signature-256); set it as the webhook secret, content type application/json.' : 'Sign each body: `X-Skillbot-Signature: sha256=<hex HMAC-SHA256 of the body>`, with a unique `X-Skillbot-Delivery` id.';
      return `Added ${hookLine(added.value.hook, added.value.url)}\nURL: ${added.value.url}\nSecret (shown once): \`${added.value.secret}\`\n${signature}`;
    }
    case 'list':
    case '': {
      const list = await hooks.list(place.worldId);
      return list.length === 0 ? `No hooks here. ${HOOK_USAGE}` : list.map((hook) => hookLine(hook, hooks.urlOf(hook.id))).join('\n');
    }
    case 'remove': {
      const [id] = rest;
      if (id === undefined) return HOOK_USAGE;
      const removed = await hooks.remove(place.worldId, id, place.userId);
      return removed.ok ? `Hook \`${id}\` removed: its URL answers 404 from now on.` : removed.error;
    }
    default:
      return HOOK_USAGE;
  }
}
