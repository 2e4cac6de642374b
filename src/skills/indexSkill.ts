// Turning one scanned folder into a Skill (or an InvalidSkill with every problem): parse, validate, and
// precompute what a turn needs (scripts the body names, reference texts) so the snapshot never reads disk.
import { basename, posix } from 'node:path';
import type { ScannedFolder } from './folderScanner.ts';
import { parseSkillMarkdown } from './frontmatter.ts';
import { bodyNames } from './mentions.ts';
import { SCAN_LIMITS } from './scanLimits.ts';
import type { InvalidSkill, Profile, ResourceFile, Skill, SkillProblem } from './types.ts';
import { validateFrontmatter } from './validate.ts';

/** Reference text kept per skill, over all the files its body names (UTF-16 units). */
export const REFERENCE_TEXT_MAX_PER_SKILL = 128 * 1024;

/** One indexed folder: a valid skill or an invalid one, plus what the watcher needs. */
export interface IndexedFolder {
  root: string;
  rootIndex: number;
  folder: string;
  hash: string;
  /** Folders to watch for this skill (absolute, as discovered). */
  watchDirs: string[];
  skill?: Skill;
  invalid?: InvalidSkill;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Cut `text` to `max` UTF-16 units without splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function resourcesOf(scanned: ScannedFolder, body: string): ResourceFile[] {
  const files = scanned.files
    .filter((f) => f.path.startsWith('references/') || f.path.startsWith('assets/'))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let budget = REFERENCE_TEXT_MAX_PER_SKILL;
  return files.map((file) => {
    const resource: ResourceFile = { path: file.path, size: file.size };
    if (file.text !== undefined && budget > 0 && bodyNames(body, file.path)) {
      const text = cut(file.text, budget);
      budget -= text.length;
      resource.text = text;
      if (file.truncated || text.length < file.text.length) resource.truncated = true;
    }
    return resource;
  });
}

/**
 * Scripts under scripts/ that the instructions reach: named in SKILL.md, or in a markdown file of the skill that
 * SKILL.md names (and so on, as public skills name their form scripts only in a linked forms.md; a document's name
 * is matched in any case, a script's exactly). A file in a subfolder may name another by its path from the skill
 * folder or from its own folder. A script named nowhere never runs.
 */
export function referencedScripts(files: ReadonlyArray<{ path: string; markdown?: string }>, body: string): string[] {
  const scripts = files.map((file) => file.path).filter((file) => file.startsWith('scripts/'));
  const markdown = files.filter((file): file is { path: string; markdown: string } => file.markdown !== undefined);
  const taken = new Set(files.map((file) => file.path));
  const found = new Set<string>();
  const reached = new Set<string>(['SKILL.md']);
  const pending = [{ from: '', text: body }];
  while (pending.length > 0) {
    const { from, text } = pending.pop() as { from: string; text: string };
    const here = posix.dirname(from);
    const names = (target: string) => bodyNames(text, target) || (here !== '.' && here !== '' && bodyNames(text, posix.relative(here, target)));
    for (const script of scripts) if (!found.has(script) && spellings(script, taken).some(names)) found.add(script);
    // A document is named however its author spelled it: "read FORMS.md" reaches forms.md.
    const lower = text.toLowerCase();
    const namesDocument = (target: string) => bodyNames(lower, target.toLowerCase()) || (here !== '.' && here !== '' && bodyNames(lower, posix.relative(here, target).toLowerCase()));
    for (const file of markdown) {
      if (reached.has(file.path) || !namesDocument(file.path)) continue;
      reached.add(file.path);
      pending.push({ from: file.path, text: file.markdown });
    }
  }
  return [...found].sort();
}

/**
 * How instructions may name a script: its path, the path without its extension (public skills write
 * `python scripts/check_fillable_fields <file.pdf>`), and for Python its module (`python -m scripts.package_skill`).
 */
function spellings(script: string, taken: ReadonlySet<string>): string[] {
  const extension = posix.extname(script);
  const stem = extension === '' ? script : script.slice(0, -extension.length);
  // `scripts/report.sh` names report.sh, not report.sh.bak: a stem that is itself a file is that file's name.
  const bare = extension === '' || taken.has(stem) ? [] : [stem];
  return [script, ...bare, ...(extension === '.py' ? [stem.replace(/\//g, '.')] : [])];
}

function scriptsOf(scanned: ScannedFolder, body: string, runOnLoad: readonly string[]): string[] {
  return [...new Set([...referencedScripts(scanned.files, body), ...runOnLoad])].sort();
}

/** Build the registry's entry for a scanned folder under `profile`. Pure; never throws for file content. */
export function indexScannedFolder(scanned: ScannedFolder, profile: Profile): IndexedFolder {
  const folderName = basename(scanned.folder);
  const file = `${scanned.folder}/SKILL.md`;
  const base = {
    root: scanned.root,
    rootIndex: scanned.rootIndex,
    folder: scanned.folder,
    hash: scanned.hash,
    watchDirs: scanned.dirs.map((rel) => (rel === '' ? scanned.folder : `${scanned.folder}/${rel}`)),
  };
  const invalid = (errors: SkillProblem[], name?: string): IndexedFolder => ({
    ...base,
    invalid: deepFreeze({ id: name ?? folderName, root: scanned.root, folder: scanned.folder, errors, warnings: scanned.warnings }),
  });

  const skillMd = scanned.files.find((f) => f.path === 'SKILL.md');
  if (!skillMd) {
    const outside = scanned.outsideLinks.includes('SKILL.md');
    const reason = outside ? 'symlink points outside the skill folder' : 'cannot be read';
    return invalid([...scanned.errors, ...(outside || scanned.errors.length === 0 ? [{ code: 'SKILL_MD_UNREADABLE', message: `${file}: ${reason}` }] : [])]);
  }
  if (skillMd.binary) return invalid([...scanned.errors, { code: 'SKILL_MD_BINARY', message: `${file}: not UTF-8 text` }]);
  if (skillMd.text === undefined) {
    const limit = SCAN_LIMITS.skillMdMaxBytes;
    return invalid([...scanned.errors, { code: 'SKILL_MD_TOO_LARGE', message: `${file}: larger than ${limit} bytes` }]);
  }
  const parsed = parseSkillMarkdown(skillMd.text, file);
  if (!parsed.ok) return invalid([...scanned.errors, parsed.problem]);

  const checked = validateFrontmatter({
    data: parsed.data,
    body: parsed.body,
    file,
    folderName,
    folder: { files: new Set(scanned.files.map((f) => f.path)), outsideLinks: new Set(scanned.outsideLinks) },
    profile,
  });
  const errors = [...scanned.errors, ...checked.errors];
  const warnings = [...scanned.warnings, ...checked.warnings];
  if (errors.length > 0 || checked.name === undefined) {
    return { ...base, invalid: deepFreeze({ id: checked.name ?? folderName, root: scanned.root, folder: scanned.folder, errors, warnings }) };
  }
  const skill: Skill = {
    id: checked.name,
    description: checked.description,
    root: scanned.root,
    dir: scanned.realDir,
    folder: scanned.folder,
    frontmatter: parsed.data,
    body: parsed.body,
    hash: scanned.hash,
    scripts: scriptsOf(scanned, parsed.body, checked.runOnLoad),
    runOnLoad: checked.runOnLoad,
    resources: resourcesOf(scanned, parsed.body),
    disableModelInvocation: checked.disableModelInvocation,
    userInvocable: checked.userInvocable,
    ...(checked.argumentHint === undefined ? {} : { argumentHint: checked.argumentHint }),
    allowedTools: checked.allowedTools,
    triggers: checked.triggers,
    preflight: checked.preflight,
    hooks: checked.hooks,
    warnings,
  };
  return { ...base, skill: deepFreeze(skill) };
}
