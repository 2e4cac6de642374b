// Turning one scanned folder into a Skill (or an InvalidSkill with every problem): parse, validate, and
// precompute what a turn needs (scripts the body names, reference texts) so the snapshot never reads disk.
import { basename, posix } from 'node:path';
import type { ScannedFolder } from './folderScanner.ts';
import { parseSkillMarkdown } from './frontmatter.ts';
import { envelopeFiles, type EnvelopeFiles } from './envelopeFiles.ts';
import { bodyNames } from './mentions.ts';
import { SCAN_LIMITS } from './scanLimits.ts';
import type { InvalidSkill, Profile, Skill, SkillProblem } from './types.ts';
import { validateFrontmatter } from './validate.ts';

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

/** `${CLAUDE_SKILL_DIR}/x` and `${CLAUDE_PLUGIN_ROOT}/skills/<folder>/x` name the skill's own `x`, as Claude Code reads them. */
export function withSkillDirAsRelative(text: string, folderName: string): string {
  return text.replaceAll(`\${CLAUDE_PLUGIN_ROOT}/skills/${folderName}/`, './').replaceAll('${CLAUDE_SKILL_DIR}/', './');
}

/**
 * Files the instructions reach: named in SKILL.md, or in a markdown file of the skill that SKILL.md names (and so
 * on, as public skills name their form scripts only in a linked forms.md; a document's name is matched in any case,
 * another file's exactly). A file may be named by its path from the skill folder, from the naming file's folder,
 * or from a plugin's root (`skills/<folder>/x`, as Claude Code plugins write it).
 */
export function reachedFiles(files: ReadonlyArray<{ path: string; markdown?: string }>, body: string, folderName: string): Set<string> {
  const markdown = new Map(files.filter((file): file is { path: string; markdown: string } => file.markdown !== undefined).map((file) => [file.path, file.markdown]));
  const found = new Set<string>();
  const pending = [{ from: '', text: withSkillDirAsRelative(body, folderName) }];
  const pluginRoot = `skills/${folderName}/`;
  while (pending.length > 0) {
    const { from, text } = pending.pop() as { from: string; text: string };
    const here = posix.dirname(from);
    const lower = text.toLowerCase();
    const spelled = (target: string) => [target, `${pluginRoot}${target}`, ...(here !== '.' && here !== '' ? [posix.relative(here, target)] : [])];
    for (const file of files) {
      if (found.has(file.path) || file.path === 'SKILL.md') continue;
      const isDocument = markdown.has(file.path);
      // A document is named however its author spelled it: "read FORMS.md" reaches forms.md.
      const hit = isDocument
        ? spelled(file.path.toLowerCase()).some((name) => bodyNames(lower, name))
        : spelled(file.path).some((name) => bodyNames(text, name));
      if (!hit) continue;
      found.add(file.path);
      if (isDocument) pending.push({ from: file.path, text: withSkillDirAsRelative(markdown.get(file.path) as string, folderName) });
    }
  }
  return found;
}

/**
 * Files in scripts/ that are data, never programs, whatever names them: `pip install -r scripts/requirements.txt`
 * reads a list, and a template or schema is read by a script, not run.
 */
const DATA_FILE = /\.(txt|md|json|ya?ml|toml|cfg|ini|lock|csv|tsv|xml|xsd|html?|css|svg|png|jpe?g|gif|pdf|docx|pptx|xlsx)$/i;

/**
 * Scripts under scripts/ that the instructions reach (`reachedFiles`), also by the spellings public skills use for
 * scripts: the path without its extension (`python scripts/check_fillable_fields <file.pdf>`) and, for Python,
 * its module (`python -m scripts.package_skill`), from the skill folder or the naming file's. A script named
 * nowhere never runs.
 */
export function referencedScripts(files: ReadonlyArray<{ path: string; markdown?: string }>, body: string, folderName = ''): string[] {
  const scripts = files.map((file) => file.path).filter((file) => file.startsWith('scripts/') && !DATA_FILE.test(file));
  const taken = new Set(files.map((file) => file.path));
  const reached = reachedFiles(files, body, folderName);
  const texts = [
    { from: '', text: withSkillDirAsRelative(body, folderName) },
    ...files.filter((file) => reached.has(file.path) && file.markdown !== undefined).map((file) => ({ from: file.path, text: withSkillDirAsRelative(file.markdown as string, folderName) })),
  ];
  const found = new Set(scripts.filter((script) => reached.has(script)));
  for (const script of scripts) {
    if (found.has(script)) continue;
    const named = texts.some(({ from, text }) => {
      const here = posix.dirname(from);
      return spellings(script, taken).some(
        (name) => bodyNames(text, name) || bodyNames(text, `skills/${folderName}/${name}`) || (here !== '.' && here !== '' && bodyNames(text, posix.relative(here, name))),
      );
    });
    if (named) found.add(script);
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

function shownFiles({ resources, unlisted }: EnvelopeFiles): Pick<Skill, 'resources' | 'unlistedFiles'> {
  return unlisted > 0 ? { resources, unlistedFiles: unlisted } : { resources };
}

function scriptsOf(scanned: ScannedFolder, body: string, runOnLoad: readonly string[]): string[] {
  return [...new Set([...referencedScripts(scanned.files, body, basename(scanned.folder)), ...runOnLoad])].sort();
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
    ...shownFiles(envelopeFiles(scanned.files, parsed.body, reachedFiles(scanned.files, parsed.body, folderName))),
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
