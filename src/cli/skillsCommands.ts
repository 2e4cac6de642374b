// `skillbot skills list|show|catalog|validate`: for people who write and run skills.
// Exit codes: 0 all good, 1 something invalid or not found, 2 bad usage (one stderr line saying the fix).
import { relative } from 'node:path';
import type { CommandOutput } from '../ops/commandOutput.ts';
import { silentLogger, type Logger } from '../ops/log.ts';
import { parseArgs } from '../skills/commandArgs.ts';
import { dependencyWarnings, HostView } from '../skills/dependencies/index.ts';
import { loadSkill } from '../skills/loadSkill.ts';
import { runMatchCommand } from './matchCommand.ts';
import { SkillRegistry } from '../skills/registry.ts';
import type { Skill, SkillProblem, SkillSnapshot } from '../skills/types.ts';
import { CLAUDE_CODE_KEY_NOTES } from '../skills/validate.ts';
import { validateFolders, type SkillReport } from '../skills/validateFolders.ts';
import { missingServers } from '../mcp/skillNeeds.ts';

export interface SkillsCommandContext {
  /** SKILLS_DIRS roots, in priority order. */
  skillsDirs: string[];
  output: CommandOutput;
  logger?: Logger;
  catalogBudgetChars?: number;
  /** For `match` (config.agent.maxTriggeredSkills). */
  maxTriggeredSkills?: number;
  /** For `validate`: the MCP servers some world offers; a skill naming another is warned about. */
  mcpServersOffered?: ReadonlySet<string>;
  /** Skills installed from the store (their folder is one of `skillsDirs`): id → where they are offered, from what. */
  installed?: ReadonlyMap<string, string>;
}

const USAGE = {
  match: 'skillbot skills match TEXT [--json]',
  list: 'skillbot skills list [--json]',
  show: 'skillbot skills show ID',
  catalog: 'skillbot skills catalog',
  validate: 'skillbot skills validate [--strict] [--json] [DIR...]',
} as const;
type Subcommand = keyof typeof USAGE;

const ALL_USAGE = Object.values(USAGE).join(' | ');

/** A path as people type it: relative to the working directory when inside it. */
function display(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

async function withSnapshot<T>(ctx: SkillsCommandContext, use: (snapshot: SkillSnapshot) => T): Promise<T> {
  const registry = await SkillRegistry.open({
    roots: ctx.skillsDirs,
    watch: false,
    logger: ctx.logger ?? silentLogger(),
    ...(ctx.catalogBudgetChars === undefined ? {} : { catalogBudgetChars: ctx.catalogBudgetChars }),
  });
  try {
    for (const root of registry.unreadableRoots) ctx.output.err(`skillbot skills: cannot read skills root ${display(root)}`);
    return use(registry.current());
  } finally {
    await registry.close();
  }
}

function reportProblems(snapshot: SkillSnapshot, output: CommandOutput): void {
  if (snapshot.invalid.length > 0) {
    const ids = snapshot.invalid.map((entry) => entry.id).join(', ');
    output.err(`skillbot skills: ${snapshot.invalid.length} invalid skill(s) not loaded (${ids}); run: skillbot skills validate`);
  }
  for (const shadow of snapshot.shadowed) {
    output.err(`skillbot skills: ${shadow.id} at ${display(shadow.folder)} is shadowed by ${display(shadow.winner)}`);
  }
}

function list(snapshot: SkillSnapshot, json: boolean, output: CommandOutput, installed: ReadonlyMap<string, string>): number {
  if (json) {
    const skills = snapshot.list().map((skill) => ({
      id: skill.id,
      description: skill.description,
      path: skill.folder,
      root: skill.root,
      hash: skill.hash,
      scripts: skill.scripts,
      triggers: skill.triggers,
      modelInvocable: !skill.disableModelInvocation,
      userInvocable: skill.userInvocable,
      ...(skill.argumentHint === undefined ? {} : { argumentHint: skill.argumentHint }),
      origin: snapshot.originOf(skill),
      ...(installed.has(skill.id) ? { installed: installed.get(skill.id) } : {}),
      warnings: skill.warnings,
    }));
    const invalid = snapshot.invalid.map((entry) => ({ id: entry.id, path: entry.folder, errors: entry.errors, warnings: entry.warnings }));
    const shadowed = snapshot.shadowed.map((entry) => ({ id: entry.id, path: entry.folder, winner: entry.winner }));
    output.out(JSON.stringify({ skills, invalid, shadowed }, null, 2));
    return 0;
  }
  const skills = snapshot.list();
  if (skills.length === 0) output.out('No skills found.');
  const width = Math.min(32, Math.max(0, ...skills.map((skill) => skill.id.length)));
  for (const skill of skills) {
    const origin = snapshot.originOf(skill);
    const flags = [
      skill.disableModelInvocation ? 'hidden from model' : '',
      skill.userInvocable ? '' : 'not a /skill command',
      skill.scripts.length > 0 ? `${skill.scripts.length} script(s)` : '',
      origin === 'folder' ? '' : `from ${origin}`,
      installed.get(skill.id) ?? '',
    ]
      .filter(Boolean)
      .join(', ');
    output.out(`${skill.id.padEnd(width)}  ${oneLine(skill.description, 72)}${flags ? `  [${flags}]` : ''}`);
  }
  reportProblems(snapshot, output);
  return 0;
}

/** Claude Code's keys as skillbot treats them, for `skills show` (stderr, beside the envelope). */
function describeClaudeCodeKeys(skill: Skill, snapshot: SkillSnapshot, output: CommandOutput, installed: ReadonlyMap<string, string>): void {
  const note = installed.get(skill.id);
  output.err(`${skill.id}: ${note ?? `from ${display(skill.folder)} (${snapshot.originOf(skill)})`}`);
  if (skill.argumentHint) output.err(`${skill.id}: usage: /skill ${skill.id} ${skill.argumentHint}`);
  if (!skill.userInvocable) output.err(`${skill.id}: user-invocable: false: not offered to people; the model may load it`);
  if (skill.disableModelInvocation) output.err(`${skill.id}: disable-model-invocation: true: only people run it (/skill)`);
  if (skill.allowedTools.length > 0) {
    output.err(`${skill.id}: allowed-tools (advisory only, never a pre-approval: every script still asks): ${skill.allowedTools.join(' ')}`);
  }
}

function show(snapshot: SkillSnapshot, id: string, output: CommandOutput, installed: ReadonlyMap<string, string>): number {
  output.out(loadSkill(snapshot, id));
  const skill = snapshot.get(id);
  if (skill) {
    describeClaudeCodeKeys(skill, snapshot, output, installed);
    return 0;
  }
  const closest = snapshot.closest(id);
  const broken = snapshot.invalid.find((entry) => entry.id === id);
  if (broken) output.err(`skillbot skills show: skill "${id}" is invalid; run: skillbot skills validate ${display(broken.folder)}`);
  else output.err(`skillbot skills show: no skill "${id}"${closest.length > 0 ? `; did you mean ${closest.join(', ')}?` : ''}`);
  return 1;
}

function catalog(snapshot: SkillSnapshot, output: CommandOutput): number {
  const result = snapshot.catalog;
  output.out(result.text);
  const hidden = snapshot.list().filter((skill) => skill.disableModelInvocation).length;
  output.err(
    `catalog: ${result.included.length} skill(s), ${result.text.length} characters` +
      (hidden > 0 ? `, ${hidden} hidden by disable-model-invocation` : ''),
  );
  if (result.shortened.length > 0) output.err(`catalog: descriptions shortened to fit the budget: ${result.shortened.join(', ')}`);
  if (result.dropped.length > 0) output.err(`catalog: left out to fit the budget: ${result.dropped.join(', ')}`);
  reportProblems(snapshot, output);
  return 0;
}

function printProblems(kind: string, problems: readonly SkillProblem[], output: CommandOutput): void {
  for (const problem of problems) output.out(`    ${kind} ${problem.code}: ${problem.message}`);
}

async function validate(ctx: SkillsCommandContext, dirs: string[], strict: boolean, json: boolean): Promise<number> {
  const given = dirs.length > 0;
  const result = await validateFolders(given ? dirs : ctx.skillsDirs, strict ? 'spec' : 'runtime');
  for (const dir of result.unreadable) ctx.output.err(`skillbot skills validate: cannot read ${dir} (is the path right?)`);
  if (given && result.unreadable.length > 0) return 2;
  for (const dir of result.empty) ctx.output.err(`skillbot skills validate: no SKILL.md found in ${dir}`);
  // A broken marketplace.json or plugin.json hides skills the author meant to ship: a failure, said where.
  for (const problem of result.rootProblems) ctx.output.err(`skillbot skills validate: ${problem}`);
  const skills: SkillReport[] = result.skills;
  // What the skills' code uses that this host lacks: warnings only, so exit codes never depend on the host.
  const host = new HostView();
  for (const skill of skills) skill.warnings.push(...(await dependencyWarnings(skill.path, host)));
  if (ctx.mcpServersOffered !== undefined) {
    for (const skill of skills) {
      const missing = await missingServers(skill.path, ctx.mcpServersOffered);
      if (missing !== undefined) skill.warnings.push({ code: 'mcp_server_missing', message: missing });
    }
  }
  const invalid = skills.filter((skill) => !skill.valid).length;
  if (json) {
    const summary = { total: skills.length, valid: skills.length - invalid, invalid };
    // The public JSON shape (tests outside the project rely on it): the Claude Code notes are text output only.
    const shaped = skills.map(({ id, path, valid, errors, warnings }) => ({ id, path, valid, errors, warnings }));
    ctx.output.out(JSON.stringify({ skills: shaped, summary }, null, 2));
  } else {
    for (const skill of skills) {
      ctx.output.out(`${skill.valid ? 'ok  ' : 'FAIL'}  ${skill.id}  ${display(skill.path)}`);
      printProblems('error', skill.errors, ctx.output);
      printProblems('warning', skill.warnings, ctx.output);
      if (!strict) for (const key of skill.claudeCodeKeys) ctx.output.out(`    claude-code ${key}: ${CLAUDE_CODE_KEY_NOTES[key] ?? 'ignored'}`);
    }
    const profile = strict ? 'spec profile (--strict)' : 'runtime profile';
    ctx.output.out(`${skills.length} skill(s): ${skills.length - invalid} valid, ${invalid} invalid (${profile})`);
  }
  return invalid > 0 || skills.length === 0 || result.rootProblems.length > 0 ? 1 : 0;
}

/** Run `skillbot skills <args>`; returns the exit code. Never throws for a user's mistake. */
export async function runSkillsCommand(args: string[], ctx: SkillsCommandContext): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === undefined) {
      ctx.output.err(`skillbot skills: missing subcommand. Usage: ${ALL_USAGE}`);
      return 2;
    }
    ctx.output.out(`Usage: ${ALL_USAGE}`);
    return 0;
  }
  if (!(name in USAGE)) {
    ctx.output.err(`skillbot skills: unknown subcommand "${name}". Usage: ${ALL_USAGE}`);
    return 2;
  }
  const sub = name as Subcommand;
  // `match` belongs to trigger matching (src/cli/matchCommand.ts), with its own options.
  if (sub === 'match') {
    const { maxTriggeredSkills } = ctx;
    return runMatchCommand(rest, { skillsDirs: ctx.skillsDirs, output: ctx.output, ...(maxTriggeredSkills === undefined ? {} : { maxTriggeredSkills }) });
  }
  const known = { list: ['--json'], show: [], catalog: [], validate: ['--strict', '--json'] }[sub];
  const parsed = parseArgs(rest, known, USAGE[sub]);
  if (!parsed.ok) {
    ctx.output.err(`skillbot skills ${sub}: ${parsed.error}`);
    return 2;
  }
  const { flags, positionals } = parsed.args;
  if (flags.has('--help')) {
    ctx.output.out(`Usage: ${USAGE[sub]}`);
    return 0;
  }
  const extra = sub === 'show' ? positionals.slice(1) : sub === 'validate' ? [] : positionals;
  if (extra.length > 0) {
    ctx.output.err(`skillbot skills ${sub}: unexpected argument "${extra[0]}". Usage: ${USAGE[sub]}`);
    return 2;
  }
  switch (sub) {
    case 'list':
      return withSnapshot(ctx, (snapshot) => list(snapshot, flags.has('--json'), ctx.output, ctx.installed ?? new Map()));
    case 'show': {
      const id = positionals[0];
      if (id === undefined || id.trim() === '') {
        ctx.output.err(`skillbot skills show: missing skill ID (see: skillbot skills list). Usage: ${USAGE.show}`);
        return 2;
      }
      return withSnapshot(ctx, (snapshot) => show(snapshot, id, ctx.output, ctx.installed ?? new Map()));
    }
    case 'catalog':
      return withSnapshot(ctx, (snapshot) => catalog(snapshot, ctx.output));
    case 'validate':
      return validate(ctx, positionals, flags.has('--strict'), flags.has('--json'));
  }
}
