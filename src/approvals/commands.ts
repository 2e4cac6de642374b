// Operator commands: `skillbot audit` and `skillbot grants list|revoke`.
import { parseArgs } from 'node:util';
import type { CommandOutput } from '../ops/commandOutput.ts';
import type { Store } from '../store/types.ts';
import { createAuditLog, type AuditEntry } from './audit.ts';
import { shortHash } from './gate.ts';
import { createGrants, type Grant, type GrantRevokeFilter } from './grants.ts';
import type { RecordSealer } from './recordSeal.ts';
import { visible } from '../text/visible.ts';

export interface CommandDeps {
  store: Store;
  output: CommandOutput;
  /** The state key's sealer: `grants list` shows only grants the bot wrote. */
  sealer?: RecordSealer;
}

const AUDIT_USAGE = 'Usage: skillbot audit [--world W] [--chat C] [--person P] [--skill S] [--since T] [--until T] [--json] (T: an ISO date or time, or an age such as 30m, 24h, 7d)';
const GRANTS_LIST_USAGE = 'skillbot grants list [--world W] [--chat C] [--json]';
const GRANTS_REVOKE_USAGE = 'skillbot grants revoke --chat C [--skill S] | --skill S | --all';
const GRANTS_USAGE = `Usage: ${GRANTS_LIST_USAGE} | ${GRANTS_REVOKE_USAGE}`;

type Parsed = { ok: true; values: Record<string, string | boolean | undefined> } | { ok: false; problem: string };

const LIST_OPTIONS = { world: { type: 'string' }, chat: { type: 'string' }, json: { type: 'boolean' } } as const;
const AUDIT_OPTIONS = {
  ...LIST_OPTIONS,
  person: { type: 'string' },
  skill: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
} as const;

const AGE_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `2026-11-25`, `2026-11-25T10:00Z` or an age before now (`30m`, `24h`, `7d`) as epoch ms; undefined when neither. */
export function parseTime(text: string, now: number = Date.now()): number | undefined {
  const age = /^(\d+)([smhd])$/.exec(text.trim());
  if (age) return now - Number(age[1]) * (AGE_UNITS[age[2] ?? 's'] ?? 1000);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const at = Date.parse(text.trim());
  return Number.isNaN(at) ? undefined : at;
}
const REVOKE_OPTIONS = { chat: { type: 'string' }, skill: { type: 'string' }, all: { type: 'boolean' } } as const;

function parse(args: string[], options: typeof LIST_OPTIONS | typeof REVOKE_OPTIONS | typeof AUDIT_OPTIONS): Parsed {
  try {
    const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
    // Strict parsing guarantees each value matches its declared type: strings and booleans only.
    return { ok: true, values: values as Record<string, string | boolean | undefined> };
  } catch (error) {
    // node's messages run on with advice about `--`; the first sentence names the problem.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: message.split('. ')[0] ?? message };
  }
}

function usageError(output: CommandOutput, command: string, problem: string, usage: string): number {
  output.err(`skillbot ${command}: ${problem}. ${usage}`);
  return 2;
}

async function usingStore<T>(output: CommandOutput, command: string, read: () => Promise<T>): Promise<{ value: T } | undefined> {
  try {
    return { value: await read() };
  } catch (error) {
    output.err(`skillbot ${command}: cannot read the store: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

function quoted(args: string[]): string {
  return args.map((arg) => JSON.stringify(arg)).join(' ');
}

function formatAuditEntry(entry: AuditEntry): string {
  const what = entry.items.map((item) => `${item.path}${item.args.length > 0 ? ` ${quoted(item.args)}` : ''}`).join('; ');
  const parts = [
    new Date(entry.at).toISOString(),
    entry.kind,
    entry.chatId,
    `${entry.skillId}@${shortHash(entry.skillHash)}`,
    what === '' ? '-' : what,
    `asked by ${entry.requestedBy ?? '-'}`,
    `decided by ${entry.decidedBy ?? '-'}`,
    entry.kind === 'run' ? `${entry.outcome} (exit ${entry.exitCode ?? '-'}, ${entry.durationMs ?? '-'} ms)` : entry.outcome,
    ...(entry.reason === undefined ? [] : [entry.reason]),
  ];
  // A hook's journal line, on its own line under the run, every invisible character named.
  const output = entry.output === undefined ? [] : entry.output.split('\n').map((line) => `    ${visible(line)}`);
  return [parts.join('  '), ...output].join('\n');
}

export async function runAuditCommand(args: string[], deps: CommandDeps): Promise<number> {
  const { output } = deps;
  const parsed = parse(args, AUDIT_OPTIONS);
  if (!parsed.ok) return usageError(output, 'audit', parsed.problem, AUDIT_USAGE);
  const { world, chat, json, person, skill, since, until } = parsed.values;
  const bounds: Record<string, number | undefined> = {};
  for (const [name, value] of [['since', since], ['until', until]] as const) {
    if (typeof value !== 'string') continue;
    bounds[name] = parseTime(value);
    if (bounds[name] === undefined) return usageError(output, 'audit', `--${name} "${value}" is neither a date nor an age`, AUDIT_USAGE);
  }
  const filter = { ...(typeof world === 'string' ? { worldId: world } : {}), ...(typeof chat === 'string' ? { chatId: chat } : {}) };
  const read = await usingStore(output, 'audit', () => createAuditLog(deps.store).list(filter));
  if (read === undefined) return 1;
  // The store lists by world and chat; the rest is a filter over those (the audit keeps 90 days).
  const entries = read.value.filter(
    (entry) =>
      (typeof person !== 'string' || entry.requestedBy === person || entry.decidedBy === person) &&
      (typeof skill !== 'string' || entry.skillId === skill) &&
      (bounds.since === undefined || entry.at >= bounds.since) &&
      (bounds.until === undefined || entry.at <= bounds.until),
  );
  if (json === true) {
    output.out(JSON.stringify({ entries }));
  } else if (entries.length === 0) {
    output.out('No audit records.');
  } else {
    output.out(entries.map(formatAuditEntry).join('\n'));
  }
  return 0;
}

function formatGrant(grant: Grant): string {
  const expires = new Date(grant.expiresAt).toISOString();
  return `${grant.chatId}  ${grant.skillId}@${shortHash(grant.skillHash)}  asked by ${grant.requesterId}  granted by ${grant.grantedBy}  expires ${expires}`;
}

async function listGrants(args: string[], deps: CommandDeps): Promise<number> {
  const { output } = deps;
  const parsed = parse(args, LIST_OPTIONS);
  if (!parsed.ok) return usageError(output, 'grants list', parsed.problem, `Usage: ${GRANTS_LIST_USAGE}`);
  const { world, chat, json } = parsed.values;
  const filter = { ...(typeof world === 'string' ? { worldId: world } : {}), ...(typeof chat === 'string' ? { chatId: chat } : {}) };
  const read = await usingStore(output, 'grants list', () => createGrants(deps.store, deps.sealer ? { sealer: deps.sealer } : {}).list(filter));
  if (read === undefined) return 1;
  const grants = read.value;
  if (json === true) output.out(JSON.stringify({ grants }));
  else if (grants.length === 0) output.out('No grants.');
  else output.out(grants.map(formatGrant).join('\n'));
  return 0;
}

/** The one filter the flags describe, or why they describe none. */
function revokeFilter(values: Record<string, string | boolean | undefined>): GrantRevokeFilter | string {
  const { chat, skill, all } = values;
  if (all === true) return chat === undefined && skill === undefined ? { all: true } : '--all takes no --chat or --skill';
  if (typeof chat === 'string') return typeof skill === 'string' ? { chatId: chat, skillId: skill } : { chatId: chat };
  if (typeof skill === 'string') return { skillId: skill };
  return 'say what to revoke';
}

async function revokeGrants(args: string[], deps: CommandDeps): Promise<number> {
  const { output } = deps;
  const usage = `Usage: ${GRANTS_REVOKE_USAGE}`;
  const parsed = parse(args, REVOKE_OPTIONS);
  if (!parsed.ok) return usageError(output, 'grants revoke', parsed.problem, usage);
  const filter = revokeFilter(parsed.values);
  if (typeof filter === 'string') return usageError(output, 'grants revoke', filter, usage);
  const read = await usingStore(output, 'grants revoke', () => createGrants(deps.store).revoke(filter));
  if (read === undefined) return 1;
  output.out(`Revoked ${read.value} grant${read.value === 1 ? '' : 's'}.`);
  return 0;
}

export async function runGrantsCommand(args: string[], deps: CommandDeps): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'list') return listGrants(rest, deps);
  if (subcommand === 'revoke') return revokeGrants(rest, deps);
  const problem = subcommand === undefined ? 'missing subcommand' : `unknown subcommand "${subcommand}"`;
  return usageError(deps.output, 'grants', problem, GRANTS_USAGE);
}
