// A script run's two folders: the turn's files in (SKILLBOT_INPUT_DIR), what it makes out (SKILLBOT_OUTPUT_DIR),
// and the delivery of what it made to the chat, within bounds.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileLimits } from '../config.ts';
import type { OutgoingFile } from '../platform.ts';
import { describeSize, type InputFile, safeFileName, uniqueName } from './inputFiles.ts';

export interface RunFolders {
  inputDir: string;
  outputDir: string;
  remove(): Promise<void>;
}

/** The turn's files and the model's text files (name → text), as the script will find them. */
export function runInputs(turnFiles: readonly InputFile[], given: Record<string, string> = {}): InputFile[] {
  const inputs: InputFile[] = [...turnFiles];
  for (const [name, text] of Object.entries(given)) {
    const base = safeFileName(name);
    // A name the person's files already use keeps theirs: the model's copy gets a prefix (and a number if needed).
    const unique = inputs.some((file) => file.name === base) ? uniqueName(`model-${base}`, inputs) : base;
    inputs.push({ name: unique, mimeType: 'text/plain', bytes: Buffer.from(text, 'utf8') });
  }
  return inputs;
}

/** Makes the run's folders and writes its inputs. */
export async function prepareRunFolders(inputs: readonly InputFile[]): Promise<RunFolders> {
  const root = await mkdtemp(join(tmpdir(), 'skillbot-files-'));
  const inputDir = join(root, 'in');
  const outputDir = join(root, 'out');
  await mkdir(inputDir);
  await mkdir(outputDir);
  for (const file of inputs) await writeFile(join(inputDir, file.name), file.bytes, { mode: 0o444 });
  return { inputDir, outputDir, remove: () => rm(root, { recursive: true, force: true }) };
}

/**
 * Uploads the files the script wrote (top level of the output folder, by name), within the bounds. Returns one
 * line per file for the model: delivered, or why not. Nothing is dropped silently.
 */
export async function deliverOutputs(
  outputDir: string,
  skillId: string,
  limits: FileLimits,
  upload: ((file: OutgoingFile) => Promise<void>) | undefined,
): Promise<string[]> {
  const entries = (await readdir(outputDir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const lines: string[] = [];
  let delivered = 0;
  for (const entry of entries) {
    if (!entry.isFile()) {
      lines.push(`Not delivered: ${entry.name} (only files at the top of SKILLBOT_OUTPUT_DIR are delivered).`);
      continue;
    }
    const size = (await stat(join(outputDir, entry.name))).size;
    if (!upload) {
      lines.push(`Not delivered: ${entry.name} (${describeSize(size)}): this chat cannot receive files.`);
      continue;
    }
    if (delivered >= limits.maxOutputs) {
      lines.push(`Not delivered: ${entry.name} (${describeSize(size)}): only ${limits.maxOutputs} files are delivered per run.`);
      continue;
    }
    if (size > limits.maxOutputBytes) {
      lines.push(`Not delivered: ${entry.name} is ${describeSize(size)}, over the ${describeSize(limits.maxOutputBytes)} limit.`);
      continue;
    }
    try {
      await upload({ name: entry.name, bytes: await readFile(join(outputDir, entry.name)), title: `${entry.name} (made by the ${skillId} skill)` });
      delivered += 1;
      lines.push(`Delivered to the chat: ${entry.name} (${describeSize(size)}).`);
    } catch (error) {
      lines.push(`Not delivered: ${entry.name}: the upload failed (${(error as Error).message}).`);
    }
  }
  return lines;
}
