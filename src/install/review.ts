// The review card's text: everything a person needs to decide, nothing left out (the card rules of script
// approvals: every invisible character named, nothing cut; a card too long for the platform is attached whole).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { interpreterFor, readFirstLine } from '../exec/interpreter.ts';
import { describeMissing, HostView, missingOnHost, scanSkillDependencies } from '../skills/dependencies/index.ts';
import { visible } from '../text/visible.ts';
import type { ApprovalItem } from '../approvals/index.ts';
import { mib } from './bounds.ts';
import { type Finding, findingLine } from './findings.ts';
import type { StagedSkill } from './stagedSkills.ts';
import type { StagedOrigin } from './staging.ts';

/** Reads as network use in code: asked for on the card, decided by the world's `network` setting. */
const NETWORK_USE = /\b(?:curl|wget|requests\.(?:get|post|put|delete|Session)|urllib\.request|urlopen|http\.client|httpx|aiohttp|fetch\s*\(|axios|https?\.request|socket\.(?:socket|create_connection)|Invoke-WebRequest)\b|https?:\/\/[^\s"')]+/;

export interface ScriptLine {
  skill: string;
  path: string;
  interpreter: string;
}

/**
 * A skill's files that can run: under scripts/, executable, or one the instructions reference. One with no
 * interpreter that is not executable (superpowers' `scripts/frame-template.html`, which its Markdown names as a
 * CSS reference) is data: listed apart as never run, not as a script with advice meant for its author.
 */
async function scriptsOf(skill: StagedSkill): Promise<{ scripts: ScriptLine[]; data: string[] }> {
  const referenced = new Set(skill.skill?.scripts ?? []);
  const scripts: ScriptLine[] = [];
  const data: string[] = [];
  for (const file of skill.files) {
    if (!(file.path.startsWith('scripts/') || file.executable || referenced.has(file.path))) continue;
    const first = await readFirstLine(join(skill.dir, file.path)).catch(() => '');
    const chosen = interpreterFor(file.path, first, { executable: file.executable });
    if (!chosen.ok && !file.executable) data.push(file.path);
    else scripts.push({ skill: skill.id, path: file.path, interpreter: chosen.ok ? [chosen.command.split('/').pop() ?? chosen.command, ...chosen.args.slice(0, -1)].join(' ') || '(runs itself)' : `cannot run: ${chosen.reason}` });
  }
  return { scripts, data };
}

async function networkUses(skill: StagedSkill): Promise<string[]> {
  const uses: string[] = [];
  for (const file of skill.files) {
    if (!(file.path.startsWith('scripts/') || file.executable) || file.size > 512 * 1024) continue;
    const text = await readFile(join(skill.dir, file.path), 'utf8').catch(() => '');
    const line = text.split('\n').findIndex((l) => NETWORK_USE.test(l));
    if (line !== -1) uses.push(`${file.path}:${line + 1}`);
  }
  return uses;
}

/**
 * SKILL.md and every script of each skill, whole, each line numbered as findings name them and shown through
 * visible() (what hides is named). A card this long is attached whole by the platform, as script cards are.
 */
async function wholeFiles(skills: readonly StagedSkill[]): Promise<string[]> {
  const lines: string[] = [];
  for (const skill of skills) {
    const { scripts } = await scriptsOf(skill);
    for (const path of ['SKILL.md', ...scripts.map((script) => script.path)]) {
      const bytes = await readFile(join(skill.dir, path)).catch(() => undefined);
      if (bytes === undefined) continue;
      const shown = skill.folder ? `${skill.folder}/${path}` : path;
      lines.push('', `── ${visible(shown)} (${bytes.byteLength} bytes, whole) ──`);
      const text = bytes.includes(0) ? bytes.toString('latin1') : bytes.toString('utf8');
      text.split('\n').forEach((line, index) => lines.push(`${String(index + 1).padStart(5)} │ ${visible(line)}`));
    }
  }
  return lines;
}

export interface Review {
  /** The card's text. */
  body: string;
  /** One item per script (for the approval record, the audit, and the card's hash binding). */
  items: ApprovalItem[];
  /** Over every skill's id and content hash: what the approval covers. */
  combinedHash: string;
}

export function combinedHash(skills: ReadonlyArray<{ id: string; hash: string }>): string {
  const lines = [...skills].sort((a, b) => (a.id < b.id ? -1 : 1)).map((s) => `${s.id}\0${s.hash}\n`);
  return createHash('sha256').update(lines.join('')).digest('hex');
}

export function originLine(origin: StagedOrigin, display: string): string {
  return origin.kind === 'git'
    ? `Source: ${visible(display)} (${origin.url}${origin.ref ? `, ref ${origin.ref}` : ''}) at commit ${origin.commit}`
    : `Source: the shared file ${visible(origin.name)}, sha256 ${origin.sha256}`;
}

export interface ReviewInput {
  origin: StagedOrigin;
  display: string;
  skills: readonly StagedSkill[];
  /** A collection: the ids of every skill it offers (the card names those not picked). */
  offered?: readonly string[];
  findings: readonly Finding[];
  /** The source's plugin parts other than skills (hooks, commands, agents, MCP servers), which are not installed. */
  leftOut?: readonly string[];
  /** An update: what differs from the installed version, already written out (see diff.ts). */
  changes?: string[];
  policy: 'warn' | 'block';
  scope: string;
}

export async function buildReview(input: ReviewInput): Promise<Review> {
  const host = new HostView();
  const lines = [originLine(input.origin, input.display), `Installs into: ${input.scope === 'defaults' ? 'every channel (defaults)' : input.scope}`];
  const items: ApprovalItem[] = [];
  if (input.offered !== undefined) {
    const picked = new Set(input.skills.map((skill) => skill.id));
    const others = input.offered.filter((id) => !picked.has(id));
    lines.push(`Picked ${picked.size} of the ${input.offered.length} skills this source holds: ${[...picked].map(visible).join(', ')}`);
    lines.push(`Not installed: ${others.length === 0 ? 'none' : others.map(visible).join(', ')} (pick others on this card, or name them with --skill NAME)`);
  }
  if (input.leftOut !== undefined && input.leftOut.length > 0) {
    lines.push('Not carried (the plugin\'s parts for Claude Code: skillbot installs only the skills, and never runs these):', ...input.leftOut.map((line) => `  ${visible(line)}`));
  }
  if (input.changes !== undefined) lines.push('', 'Changes from the installed version:', ...(input.changes.length > 0 ? input.changes.map((c) => `  ${c}`) : ['  (none)']));
  for (const skill of input.skills) {
    const bytes = skill.files.reduce((sum, file) => sum + file.size, 0);
    lines.push('', `Skill ${visible(skill.id)} (content ${skill.hash.slice(0, 12)}): ${skill.files.length} files, ${mib(bytes)}${skill.folder ? `, from ${visible(skill.folder)}/` : ''}`);
    lines.push(`  description: ${visible(skill.description || '(none: invalid)')}`);
    const { scripts, data } = await scriptsOf(skill);
    lines.push(scripts.length === 0 ? '  scripts: none' : '  scripts:');
    for (const script of scripts) {
      lines.push(`    ${visible(script.path)} (${visible(script.interpreter)})`);
      items.push({ kind: 'script', path: `${skill.id}/${script.path}`, args: [script.interpreter] });
    }
    if (data.length > 0) lines.push(`  not programs, never run (no shebang, no known extension, not executable): ${data.map(visible).join(', ')}`);
    const meta = skill.skill;
    const unasked: string[] = [];
    if (meta?.runOnLoad.length) unasked.push(`run-on-load: ${meta.runOnLoad.map(visible).join(', ')}`);
    if (meta?.preflight.length) unasked.push(`preflight: ${meta.preflight.map((step) => visible(step.command ?? step.tool ?? step.name ?? '?')).join(', ')}`);
    const hooks = Object.entries(meta?.hooks ?? {}).filter(([, specs]) => (specs?.length ?? 0) > 0);
    if (hooks.length > 0) unasked.push(`hooks: ${hooks.map(([event, specs]) => `${event} → ${(specs ?? []).map((spec) => visible(spec.script)).join(', ')}`).join('; ')}`);
    if (meta?.triggers.length) unasked.push(`triggers (activates on): ${meta.triggers.map((t) => `"${visible(t)}"`).join(', ')}`);
    lines.push(`  runs without being asked for: ${unasked.length === 0 ? 'nothing (each run is approved on its own card)' : ''}`);
    for (const entry of unasked) lines.push(`    ${entry}`);
    const network = await networkUses(skill);
    lines.push(`  network: ${network.length === 0 ? 'none seen in its scripts' : `its scripts reach for it (${network.join(', ')}); the channel's \`network\` setting decides`}`);
    const missing = skill.skill ? missingOnHost(await scanSkillDependencies(skill.dir).catch(() => []), host, skill.dir) : [];
    lines.push(`  host dependencies missing: ${missing.length === 0 ? 'none' : ''}`);
    for (const dependency of missing) lines.push(`    ${visible(describeMissing(dependency))}`);
  }
  lines.push(...(await wholeFiles(input.skills)));
  const dangers = input.findings.filter((f) => f.severity === 'danger');
  lines.push('', dangers.length === 0 ? 'Scanner: no findings.' : `Scanner: ${dangers.length} finding(s)${input.policy === 'block' ? ' (this channel blocks installs with findings)' : ''}:`);
  for (const finding of input.findings) lines.push(`  ${visible(findingLine(finding))}`);
  lines.push('', 'Yes installs exactly these files, pinned; nothing runs until a script card is approved. No installs nothing.');
  return { body: lines.join('\n'), items, combinedHash: combinedHash(input.skills) };
}
