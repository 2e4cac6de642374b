// `skillbot skills match TEXT [--json] [--max N]`: which skills a message would trigger, and why, for skill
// authors. It ranks every match, then says which would activate and why the others would not. What a
// world allows and what a chat already has active are left out: those depend on where the message is sent.
import { parseArgs } from 'node:util';
import type { CommandOutput } from '../ops/commandOutput.ts';
import { SkillRegistry } from '../skills/registry.ts';
import { normaliseTriggerText, rankTriggerMatches } from '../skills/triggers.ts';

/** config.agent.maxTriggeredSkills when no config says otherwise. */
const DEFAULT_MAX_TRIGGERED = 3;

export interface MatchCommandContext {
  skillsDirs: string[];
  output: CommandOutput;
  /** config.agent.maxTriggeredSkills. */
  maxTriggeredSkills?: number;
}

interface MatchRow {
  id: string;
  score: number;
  matched: string[];
  activates: boolean;
  /** Why it would not activate. */
  reason?: 'disable-model-invocation' | 'over_limit';
}

const USAGE = 'usage: skillbot skills match TEXT [--json] [--max N]';

function rows(text: string, skills: Parameters<typeof rankTriggerMatches>[1], max: number): MatchRow[] {
  let slots = max;
  return rankTriggerMatches(text, skills).map((match) => {
    const row = { id: match.skillId, score: match.score, matched: match.matched };
    if (match.disabled) return { ...row, activates: false, reason: 'disable-model-invocation' as const };
    if (slots <= 0) return { ...row, activates: false, reason: 'over_limit' as const };
    slots -= 1;
    return { ...row, activates: true };
  });
}

function describe(row: MatchRow, max: number): string {
  const phrases = row.matched.map((phrase) => JSON.stringify(phrase)).join(', ');
  const why = row.reason === 'disable-model-invocation' ? ' (disable-model-invocation: true, never activated by a message)'
    : row.reason === 'over_limit' ? ` (beyond the limit of ${max} skills per message)` : '';
  return `  ${row.id}  score ${row.score}  matched ${phrases}${why}`;
}

export async function runMatchCommand(args: string[], ctx: MatchCommandContext): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, max: { type: 'string' } }, strict: true });
  } catch (error) {
    ctx.output.err(`skillbot skills match: ${(error as Error).message}. ${USAGE}`);
    return 2;
  }
  const text = parsed.positionals.join(' ');
  if (text.trim() === '') {
    ctx.output.err(`skillbot skills match: give the message text. ${USAGE}`);
    return 2;
  }
  const max = parsed.values.max === undefined ? (ctx.maxTriggeredSkills ?? DEFAULT_MAX_TRIGGERED) : Number(parsed.values.max);
  if (!Number.isInteger(max) || max < 0 || max > 20) {
    ctx.output.err(`skillbot skills match: --max must be a whole number from 0 to 20, got ${JSON.stringify(parsed.values.max)}.`);
    return 2;
  }

  const registry = await SkillRegistry.open({ roots: ctx.skillsDirs, watch: false });
  // A snapshot is immutable: it outlives the registry that made it.
  const snapshot = registry.current();
  await registry.close();
  const matches = rows(text, snapshot.list(), max);

  if (parsed.values.json === true) {
    ctx.output.out(JSON.stringify({ text, normalised: normaliseTriggerText(text), max, matches }));
    return 0;
  }
  const lines = [`Message: ${JSON.stringify(text)}`];
  const activated = matches.filter((row) => row.activates);
  const others = matches.filter((row) => !row.activates);
  if (matches.length === 0) {
    const withTriggers = snapshot.list().filter((skill) => skill.triggers.length > 0).length;
    lines.push(`No skill's triggers match (${withTriggers} skill(s) declare triggers).`);
  }
  if (activated.length > 0) lines.push(`Would activate (best first, at most ${max}):`, ...activated.map((row) => describe(row, max)));
  if (others.length > 0) lines.push('Also matched, but would not activate:', ...others.map((row) => describe(row, max)));
  if (snapshot.invalid.length > 0) {
    lines.push(`(${snapshot.invalid.length} skill folder(s) are invalid and were not considered; see skillbot skills validate.)`);
  }
  ctx.output.out(lines.join('\n'));
  return 0;
}
