// After code ran in a chat's workspace: what it created or changed (for the model, with the text of small new text
// files, so a JSON a script wrote needs no second round trip), and the delivery of what it left in
// /workspace/outputs to the thread. Files are read without following links (src/workspace/safeFiles.ts).
import type { FileLimits } from '../config/config.ts';
import type { ExecResult } from '../exec/types.ts';
import { SANDBOX_PATHS } from '../config/sandboxPaths.ts';
import type { OutgoingFile } from '../platform/port.ts';
import { visible } from '../text/visible.ts';
import { readInside } from '../workspace/safeFiles.ts';
import { describeSize } from './inputFiles.ts';
import { seeImagesHint } from '../text/imageHint.ts';

export interface ChangedFile {
  /** Absolute inside the sandbox: /workspace/… */
  path: string;
  size: number;
  created: boolean;
  /** The text of a small new text file. */
  text?: string;
}

/** A new text file up to this size comes with its text; all such texts of one run together at most the second. */
const TEXT_FILE_MAX = 8 * 1024;
const TEXT_TOTAL_MAX = 32 * 1024;
/** Files listed per run; more are counted. */
const LISTED_MAX = 200;
/** Upload names are cut to this many bytes (UTF-8), at a character boundary. */
const NAME_MAX_BYTES = 200;

const inside = (rel: string) => `${SANDBOX_PATHS.workspace}/${rel}`;

function isText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  return !bytes.toString('utf8').includes('\uFFFD');
}

/** The run's created or changed files, as the model reads them. */
export async function changedFiles(workspaceDir: string, report: NonNullable<ExecResult['workspace']>): Promise<{ files: ChangedFile[]; unlisted: number }> {
  const files: ChangedFile[] = [];
  let textLeft = TEXT_TOTAL_MAX;
  for (const change of report.changes.slice(0, LISTED_MAX)) {
    // A script names its files: shown to the model with every control or reordering character spelled out.
    const file: ChangedFile = { path: visible(inside(change.path)), size: change.size, created: change.created };
    if (change.created && change.size <= TEXT_FILE_MAX && change.size <= textLeft) {
      const read = await readInside(workspaceDir, change.path, change.path, TEXT_FILE_MAX).catch(() => undefined);
      if (read !== undefined && !read.truncated && isText(read.bytes)) {
        file.text = read.bytes.toString('utf8');
        textLeft -= change.size;
      }
    }
    files.push(file);
  }
  return { files, unlisted: Math.max(0, report.changes.length - LISTED_MAX) };
}

/** One line per file for plain-text results (the shell's). */
export function changesText(changed: { files: ChangedFile[]; unlisted: number }, limitReached?: string): string {
  if (changed.files.length === 0 && limitReached === undefined) return '';
  const lines = ['Workspace files this command created or changed:'];
  for (const file of changed.files) {
    lines.push(`- ${file.path} (${describeSize(file.size)}${file.created ? ', new' : ''})`);
    if (file.text !== undefined) lines.push(`  content:\n${file.text.replace(/^/gm, '    ')}`);
  }
  if (changed.unlisted > 0) lines.push(`- and ${changed.unlisted} more`);
  const images = seeImagesHint(changed.files.map((file) => file.path));
  if (images !== undefined) lines.push(images);
  if (limitReached !== undefined) lines.push(`The ${limitReached}: the run was stopped there. Remove files you no longer need before writing more.`);
  return lines.join('\n');
}

/** `name` cut to at most `max` bytes of UTF-8 without splitting a character. */
export function cutToBytes(name: string, max = NAME_MAX_BYTES): string {
  if (Buffer.byteLength(name, 'utf8') <= max) return name;
  let out = '';
  for (const char of name) {
    if (Buffer.byteLength(out + char, 'utf8') > max) break;
    out += char;
  }
  return out;
}

/**
 * Uploads what the run created or changed at the top of /workspace/outputs, within the bounds. One line per file
 * for the model and the person: delivered, or why not. Nothing is dropped silently.
 */
export async function deliverOutputs(
  workspaceDir: string,
  report: NonNullable<ExecResult['workspace']>,
  source: string,
  limits: FileLimits,
  upload: ((file: OutgoingFile) => Promise<void>) | undefined,
): Promise<string[]> {
  const lines: string[] = [];
  let delivered = 0;
  for (const change of report.changes) {
    if (!change.path.startsWith('outputs/')) continue;
    const name = change.path.slice('outputs/'.length);
    const shown = visible(name);
    if (name.includes('/')) {
      lines.push(`Not delivered: ${shown} (only files at the top of ${SANDBOX_PATHS.outputs} are delivered).`);
      continue;
    }
    if (!upload) {
      lines.push(`Not delivered: ${shown} (${describeSize(change.size)}): this chat cannot receive files; it stays at ${visible(inside(change.path))}.`);
      continue;
    }
    if (delivered >= limits.maxOutputs) {
      lines.push(`Not delivered: ${shown} (${describeSize(change.size)}): only ${limits.maxOutputs} files are delivered per run; it stays in the workspace.`);
      continue;
    }
    if (change.size > limits.maxOutputBytes) {
      lines.push(`Not delivered: ${shown} is ${describeSize(change.size)}, over the ${describeSize(limits.maxOutputBytes)} limit; it stays in the workspace.`);
      continue;
    }
    try {
      const read = await readInside(workspaceDir, change.path, shown, limits.maxOutputBytes);
      const uploadName = cutToBytes(shown);
      await upload({ name: uploadName, bytes: read.bytes, title: `${uploadName} (made by ${source})` });
      delivered += 1;
      lines.push(`Delivered to the chat: ${shown} (${describeSize(change.size)}).`);
    } catch (error) {
      lines.push(`Not delivered: ${shown}: ${(error as Error).message}.`);
    }
  }
  return lines;
}
