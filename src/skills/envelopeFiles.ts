// What a `load_skill` envelope shows of a skill's files, decided once at index time: the files the model may need
// listed with their sizes, and the text of a few small linked documents inlined within one small budget. Everything
// else is read on demand with the editor's `view` at /skills/<id>/<path> (progressive disclosure: a load stays light
// whatever the skill bundles; claude-api links 30 documents, skill-creator an 80 KB HTML viewer).
import { posix } from 'node:path';
import type { ScannedFile } from './folderScanner.ts';
import { bodyNames } from './mentions.ts';
import type { ResourceFile } from './types.ts';

/** Text inlined per envelope, over all its files (UTF-16 units); a document is inlined whole or not at all. */
export const INLINED_TEXT_MAX = 8 * 1024;
/** The listing's own size (characters of its `<file>` lines, about): past it, files are counted, not named. */
export const LISTED_FILES_MAX_CHARS = 2_500;
/** Only prose is inlined: never HTML, code, data or anything under assets/ (templates, fonts, viewers). */
const INLINED_EXTENSIONS = new Set(['.md', '.markdown', '.txt']);

export interface EnvelopeFiles {
  /** Listed files, sorted by path; those with `text` are inlined. */
  resources: ResourceFile[];
  /** Files the model may need that the listing's bound left out. */
  unlisted: number;
}

/** The whole text of `file` when it is linked prose the envelope may inline. */
function prose(file: ScannedFile, reached: ReadonlySet<string>): string | undefined {
  if (!reached.has(file.path) || file.path.startsWith('assets/')) return undefined;
  if (!INLINED_EXTENSIONS.has(posix.extname(file.path).toLowerCase())) return undefined;
  return file.markdown ?? (file.truncated === true ? undefined : file.text);
}

/** Approximate characters of one listed file's line (its attributes, not its text). */
function lineCost(file: ScannedFile): number {
  return file.path.length + String(file.size).length + 26;
}

/**
 * The files the model may need: every file under references/ or assets/, and every other non-script file the
 * instructions reach (`reached`, as reachedFiles follows links). Inlined first are documents SKILL.md itself names,
 * then those it reaches through them, each whole while the budget lasts; listed first are inlined ones, then
 * reached ones, then the rest, until the listing's bound.
 */
export function envelopeFiles(files: readonly ScannedFile[], body: string, reached: ReadonlySet<string>): EnvelopeFiles {
  const candidates = files.filter(
    (f) => f.path.startsWith('references/') || f.path.startsWith('assets/') || (reached.has(f.path) && !f.path.startsWith('scripts/')),
  );
  const byPath = (a: ScannedFile, b: ScannedFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const named = (f: ScannedFile) => bodyNames(body, f.path);
  const inlineOrder = [...candidates].sort((a, b) => Number(named(b)) - Number(named(a)) || byPath(a, b));
  const texts = new Map<string, string>();
  let budget = INLINED_TEXT_MAX;
  for (const file of inlineOrder) {
    const text = prose(file, reached);
    if (text === undefined || text.length > budget) continue;
    texts.set(file.path, text);
    budget -= text.length;
  }
  const rank = (f: ScannedFile) => (texts.has(f.path) ? 0 : reached.has(f.path) ? 1 : 2);
  const listOrder = [...candidates].sort((a, b) => rank(a) - rank(b) || byPath(a, b));
  const listed: ResourceFile[] = [];
  let room = LISTED_FILES_MAX_CHARS;
  for (const file of listOrder) {
    const text = texts.get(file.path);
    if (text === undefined && lineCost(file) > room) continue;
    room -= lineCost(file);
    listed.push(text === undefined ? { path: file.path, size: file.size } : { path: file.path, size: file.size, text });
  }
  return { resources: listed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), unlisted: candidates.length - listed.length };
}
