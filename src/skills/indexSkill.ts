// Turning one folder into a Skill (or an InvalidSkill with every problem): scan, parse, validate, and
// precompute what a turn needs (scripts the body names, reference texts) so the snapshot never reads disk.
import type { Dirent } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename } from 'node:path';
import { scanSkillFolder, SCAN_LIMITS, type FolderScan } from './folderScan.ts';
import { parseSkillMarkdown } from './frontmatter.ts';
import type { Limiter } from './limiter.ts';
import { bodyNames } from './mentions.ts';
import { decodeText, decodeTextPrefix } from './text.ts';
import type { InvalidSkill, Profile, ResourceFile, Skill, SkillProblem } from './types.ts';
import { validateFrontmatter } from './validate.ts';

/** Reference text kept per skill, over all the files its body names. */
export const REFERENCE_TEXT_MAX_PER_SKILL = 128 * 1024;

/** Where a candidate skill folder was found. */
export interface FolderPlace {
  root: string;
  rootIndex: number;
  /** The folder as discovered (not resolved). */
  folder: string;
  /** Its entries, when discovery already read them. */
  entries?: Dirent[];
  /** Its real path, when discovery already knows it. */
  realDir?: string;
}

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

function resourcesOf(scan: FolderScan, body: string): ResourceFile[] {
  const paths = [...scan.files.keys()].filter((p) => p.startsWith('references/') || p.startsWith('assets/')).sort();
  let budget = REFERENCE_TEXT_MAX_PER_SKILL;
  return paths.map((path) => {
    const file = scan.files.get(path);
    const resource: ResourceFile = { path, size: file?.size ?? 0 };
    if (file?.bytes && budget > 0 && bodyNames(body, path)) {
      const text = decodeTextPrefix(file.bytes.subarray(0, file.size), Math.min(SCAN_LIMITS.keepBytes, budget));
      if (text) {
        // A file kept only in part was cut by the scan, so it is truncated even if its kept bytes fit.
        const truncated = text.truncated || file.bytes.length < file.size;
        budget -= Buffer.byteLength(text.text);
        resource.text = text.text;
        if (truncated) resource.truncated = true;
      }
    }
    return resource;
  });
}

function scriptsOf(scan: FolderScan, body: string): string[] {
  return [...scan.files.keys()].filter((p) => p.startsWith('scripts/') && bodyNames(body, p)).sort();
}

/**
 * Index the folder at `place` under `profile`. Undefined when it is not (or no longer) a skill folder.
 * Never throws for anything found on disk.
 */
export async function indexSkillFolder(
  place: FolderPlace,
  profile: Profile,
  limiter: Limiter,
): Promise<IndexedFolder | undefined> {
  let dir: string;
  try {
    dir = place.realDir ?? (await limiter.run(() => realpath(place.folder)));
  } catch {
    return undefined;
  }
  const scan = await scanSkillFolder(place.folder, dir, limiter, place.entries);
  const folderName = basename(place.folder);
  const file = `${place.folder}/SKILL.md`;
  const base = {
    root: place.root,
    rootIndex: place.rootIndex,
    folder: place.folder,
    hash: scan.hash,
    watchDirs: scan.dirs.map((rel) => (rel === '' ? place.folder : `${place.folder}/${rel}`)),
  };
  const invalid = (errors: SkillProblem[], warnings: SkillProblem[], name?: string): IndexedFolder => ({
    ...base,
    invalid: deepFreeze({ id: name ?? folderName, root: place.root, folder: place.folder, errors, warnings }),
  });

  const skillMd = scan.files.get('SKILL.md');
  if (!skillMd) {
    if (scan.outsideLinks.has('SKILL.md')) {
      return invalid([{ code: 'SKILL_MD_OUTSIDE', message: `${file}: symlink points outside the skill folder` }], []);
    }
    return scan.errors.length > 0 ? invalid(scan.errors, scan.warnings) : undefined;
  }
  if (!skillMd.bytes) {
    const limit = SCAN_LIMITS.skillMdMaxBytes;
    return invalid([...scan.errors, { code: 'SKILL_MD_TOO_LARGE', message: `${file}: larger than ${limit} bytes` }], scan.warnings);
  }
  const text = decodeText(skillMd.bytes);
  if (text === undefined) {
    return invalid([...scan.errors, { code: 'SKILL_MD_BINARY', message: `${file}: not UTF-8 text` }], scan.warnings);
  }
  const parsed = parseSkillMarkdown(text, file);
  if (!parsed.ok) return invalid([...scan.errors, parsed.problem], scan.warnings);

  const checked = validateFrontmatter({
    data: parsed.data,
    body: parsed.body,
    file,
    folderName,
    folder: { files: new Set(scan.files.keys()), outsideLinks: scan.outsideLinks },
    profile,
  });
  const errors = [...scan.errors, ...checked.errors];
  const warnings = [...scan.warnings, ...checked.warnings];
  if (errors.length > 0 || checked.name === undefined) return invalid(errors, warnings, checked.name);

  const skill: Skill = {
    id: checked.name,
    description: checked.description,
    root: place.root,
    dir,
    folder: place.folder,
    frontmatter: parsed.data,
    body: parsed.body,
    hash: scan.hash,
    scripts: scriptsOf(scan, parsed.body),
    resources: resourcesOf(scan, parsed.body),
    disableModelInvocation: checked.disableModelInvocation,
    triggers: checked.triggers,
    preflight: checked.preflight,
    hooks: checked.hooks,
    warnings,
  };
  return { ...base, skill: deepFreeze(skill) };
}
