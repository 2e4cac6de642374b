// Claude's own text editor tool (str_replace_based_edit_tool: view, create, str_replace, insert), run by skillbot
// on the chat's workspace. It changes data, not code, so it asks nobody; it can `view` the folders of skills loaded
// in the chat (read-only), and shows Claude the images it views (editorImage.ts). It never reads or writes anything
// else: every path is resolved component by component without following links, and files with other hard links
// are refused (src/workspace/safeFiles.ts).
import path from 'node:path';
import type { ToolTextEditor20250728 } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { activeSkills } from '../../lifecycle/chatSkills.ts';
import { SANDBOX_PATHS, skillMountName } from '../../config/sandboxPaths.ts';
import { skillOfTurn } from '../turnServerSkills.ts';
import type { Tool, ToolResult } from '../../tools/contract.ts';
import { entryAt, readInside, writeInside, WorkspacePathError } from '../../workspace/safeFiles.ts';
import { visible } from '../../text/visible.ts';
import { workspaceRoomProblem } from '../../workspace/workspaceRoom.ts';
import { viewFolder } from '../editorFolderView.ts';
import { IMAGE_MAX_FILE_BYTES, imageForClaude } from '../editorImage.ts';
import { describeSize, type ImageType, sniffImage } from '../inputFiles.ts';
import type { ToolContext, ToolDeps, TurnContext } from '../turnContext.ts';
import { LOAD_SKILL } from './loadSkill.ts';

const TEXT_EDITOR = 'str_replace_based_edit_tool';

/** Anthropic's own client tool, in the newest version API version 2026-10-21 accepts. */
const definition: ToolTextEditor20250728 = { type: 'text_editor_20250728', name: TEXT_EDITOR, max_characters: 100_000 };

const editorInput = z.discriminatedUnion('command', [
  z.object({ command: z.literal('view'), path: z.string().min(1).max(4096), view_range: z.tuple([z.number().int(), z.number().int()]).optional() }),
  z.object({ command: z.literal('create'), path: z.string().min(1).max(4096), file_text: z.string().max(5_000_000) }),
  z.object({ command: z.literal('str_replace'), path: z.string().min(1).max(4096), old_str: z.string().max(5_000_000), new_str: z.string().max(5_000_000).default('') }),
  z.object({
    command: z.literal('insert'),
    path: z.string().min(1).max(4096),
    insert_line: z.number().int().min(0),
    // The tool's documentation names it new_str; some versions say insert_text.
    new_str: z.string().max(5_000_000).optional(),
    insert_text: z.string().max(5_000_000).optional(),
  }),
]);
type EditorInput = z.infer<typeof editorInput>;

/** Largest file the editor reads or writes: the tool is for text. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Characters of a view (the tool's max_characters). */
const MAX_VIEW_CHARS = 100_000;

interface Target {
  root: string;
  rel: string;
  /** The path as the model wrote it, normalised. */
  shown: string;
  writable: boolean;
}

const failure = (text: string): ToolResult => ({ content: `Error: ${text}`, isError: true });

/** Where a path the model gave points: the workspace (read-write) or a loaded skill's folder (view only). */
async function resolveTarget(deps: ToolDeps, turn: TurnContext, raw: string): Promise<Target | string> {
  const absolute = path.posix.normalize(raw.startsWith('/') ? raw : `${SANDBOX_PATHS.workspace}/${raw}`);
  const workspace = SANDBOX_PATHS.workspace;
  if (absolute === workspace || absolute.startsWith(`${workspace}/`)) {
    return { root: turn.workspace.dir, rel: absolute.slice(workspace.length + 1), shown: absolute, writable: true };
  }
  const skills = `${SANDBOX_PATHS.skills}/`;
  if (absolute.startsWith(skills)) {
    const [id = '', ...rest] = absolute.slice(skills.length).split('/');
    // By mount name: an MCP server's skill `releases:release-notes` is at /skills/releases.release-notes.
    const loaded = (await activeSkills(deps.store, turn.chatId)).find((entry) => skillMountName(entry.id) === id);
    const skill = loaded === undefined ? undefined : await skillOfTurn(turn, loaded.id);
    if (skill === undefined || loaded === undefined || skill.hash !== loaded.hash) return `${absolute}: the skill "${id}" is not loaded in this chat (load it with ${LOAD_SKILL} first)`;
    return { root: skill.dir, rel: rest.join('/'), shown: absolute, writable: false };
  }
  return `${absolute} is outside the workspace: the editor works in ${workspace} (and can view ${SANDBOX_PATHS.skills}/<id> of loaded skills)`;
}

function textOf(target: Target, read: { bytes: Buffer; size: number; truncated: boolean }): string {
  if (read.truncated) throw new WorkspacePathError(`${target.shown} is ${describeSize(read.size)}, larger than the editor's ${describeSize(MAX_FILE_BYTES)}; use bash for it`);
  if (read.bytes.includes(0)) throw new WorkspacePathError(`${target.shown} is a binary file (${describeSize(read.size)}); use bash to inspect it`);
  return read.bytes.toString('utf8');
}

async function readText(target: Target): Promise<string> {
  return textOf(target, await readInside(target.root, target.rel, target.shown, MAX_FILE_BYTES));
}

/** Refuses a write that would take the workspace over its bound. */
async function checkRoom(turn: TurnContext, target: Target, bytes: number): Promise<void> {
  const problem = await workspaceRoomProblem(turn.workspace, [{ rel: target.rel, bytes }]);
  if (problem !== undefined) throw new WorkspacePathError(problem);
}

async function write(turn: TurnContext, target: Target, text: string): Promise<void> {
  if (!target.writable) throw new WorkspacePathError(`${target.shown} is read-only (skills are changed by their authors, not in a chat)`);
  const bytes = Buffer.from(text, 'utf8');
  await checkRoom(turn, target, bytes.byteLength);
  await writeInside(target.root, target.rel, target.shown, bytes, turn.workspace.owner);
}

async function view(turn: TurnContext, target: Target, range: [number, number] | undefined): Promise<ToolResult> {
  const entry = await entryAt(target.root, target.rel, target.shown);
  if (entry === undefined) throw new WorkspacePathError(`${target.shown} does not exist`);
  if (entry.info.isDirectory()) return { content: viewFolder(target.root, target.rel, target.shown) };
  let read = await readInside(target.root, target.rel, target.shown, MAX_FILE_BYTES);
  const imageType = sniffImage(read.bytes);
  if (imageType !== undefined) {
    if (read.truncated) read = await readInside(target.root, target.rel, target.shown, IMAGE_MAX_FILE_BYTES);
    if (read.truncated) throw new WorkspacePathError(`${target.shown} is ${describeSize(read.size)}, larger than the ${describeSize(IMAGE_MAX_FILE_BYTES)} the editor shows as an image; make a smaller copy with bash first`);
    return showImage(turn, target, read.bytes, imageType);
  }
  const lines = textOf(target, read).split('\n');
  const [from, to] = range ?? [1, -1];
  const last = to === -1 ? lines.length : Math.min(to, lines.length);
  if (from < 1 || from > Math.max(1, lines.length) || last < from) throw new WorkspacePathError(`view_range [${from}, ${to}] is outside the file's ${lines.length} lines`);
  const numbered = lines.slice(from - 1, last).map((line, index) => `${from + index}: ${line}`).join('\n');
  return { content: numbered.length > MAX_VIEW_CHARS ? `${numbered.slice(0, MAX_VIEW_CHARS)}\n[… cut at ${MAX_VIEW_CHARS} characters; view a smaller range]` : numbered };
}

/** An image file as an image block Claude sees, with a line saying what it is; the person is told it was shown. */
async function showImage(turn: TurnContext, target: Target, bytes: Buffer, type: ImageType): Promise<ToolResult> {
  const seen = await imageForClaude(bytes, type);
  if (typeof seen === 'string') throw new WorkspacePathError(`${target.shown} cannot be shown: ${seen}`);
  const scaled = seen.scaledFrom === undefined ? '' : `, scaled down from ${seen.scaledFrom.width}×${seen.scaledFrom.height}`;
  const text = `${target.shown}: ${type.slice(6).toUpperCase()} image, ${seen.width}×${seen.height} pixels${scaled} (${describeSize(bytes.byteLength)}).`;
  turn.progress(`Showed Claude the image ${visible(target.shown)} (${seen.width}×${seen.height}${scaled})`);
  return { content: text, blocks: [{ type: 'text', text }, seen.block] };
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

async function edit(turn: TurnContext, target: Target, input: Exclude<EditorInput, { command: 'view' }>): Promise<string> {
  switch (input.command) {
    case 'create':
      await write(turn, target, input.file_text);
      return `File created successfully at: ${target.shown}`;
    case 'str_replace': {
      const text = await readText(target);
      if (input.old_str === '') throw new WorkspacePathError('old_str is empty; give the exact text to replace');
      const count = occurrences(text, input.old_str);
      if (count === 0) throw new WorkspacePathError(`No match found for replacement in ${target.shown}. Please check your text and try again.`);
      if (count > 1) throw new WorkspacePathError(`Found ${count} matches for replacement text in ${target.shown}. Please provide more context to make a unique match.`);
      await write(turn, target, text.replace(input.old_str, () => input.new_str));
      return `Successfully replaced text at exactly one location in ${target.shown}.`;
    }
    case 'insert': {
      const lines = (await readText(target)).split('\n');
      const added = input.new_str ?? input.insert_text;
      if (added === undefined) throw new WorkspacePathError('insert needs new_str, the text to insert');
      if (input.insert_line > lines.length) throw new WorkspacePathError(`insert_line ${input.insert_line} is past the file's ${lines.length} lines`);
      lines.splice(input.insert_line, 0, ...added.split('\n'));
      await write(turn, target, lines.join('\n'));
      return `Text inserted after line ${input.insert_line} of ${target.shown}.`;
    }
  }
}

async function runEditor(deps: ToolDeps, turn: TurnContext, input: EditorInput): Promise<ToolResult> {
  const target = await resolveTarget(deps, turn, input.path);
  if (typeof target === 'string') return failure(target);
  try {
    if (input.command === 'view') return await view(turn, target, input.view_range);
    return { content: await edit(turn, target, input) };
  } catch (error) {
    if (error instanceof WorkspacePathError) return failure(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    deps.logger.warn({ err: error, chatId: turn.chatId, path: target.shown }, 'editor could not act on a file');
    return failure(`${target.shown}: the file could not be used (${code ?? 'error'})`);
  }
}

/** "Reading /workspace/notes.md…" or "Editing …", with a path cut to a readable length. */
function editorProgress(input: unknown): string {
  const { command, path: where } = (input ?? {}) as { command?: unknown; path?: unknown };
  const shown = typeof where === 'string' && where.length <= 200 ? ` ${where}` : '';
  return command === 'view' ? `Reading${shown}…` : `Editing${shown}…`;
}

export const textEditorTool: Tool<ToolContext, EditorInput> = {
  name: TEXT_EDITOR,
  definition,
  input: editorInput,
  invalid(error) {
    const issue = error.issues[0];
    return failure(`${TEXT_EDITOR} input is invalid: ${issue === undefined ? 'bad input' : `${issue.path.join('.') || 'command'} ${issue.message}`} (commands: view, create, str_replace, insert)`);
  },
  progress: editorProgress,
  async run(input, { deps, turn }) {
    await turn.openWorkspace();
    return runEditor(deps, turn, input);
  },
};
