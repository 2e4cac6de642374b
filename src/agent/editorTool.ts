// Claude's own text editor tool (str_replace_based_edit_tool: view, create, str_replace, insert), run by skillbot
// on the chat's workspace. It changes data, not code, so it asks nobody; it can `view` the folders of skills loaded
// in the chat (read-only). It never reads or writes anything else: every path is resolved component by component
// without following links, and files with other hard links are refused (src/workspace/safeFiles.ts).
import path from 'node:path';
import { activeSkills } from '../lifecycle/chatSkills.ts';
import { SANDBOX_PATHS } from '../config/sandboxPaths.ts';
import { components, type Folder, openPath, withFolder } from '../workspace/folderFd.ts';
import { entryAt, readInside, writeInside, WorkspacePathError } from '../workspace/safeFiles.ts';
import { visible } from '../text/visible.ts';
import { workspaceRoomProblem } from '../workspace/workspaceRoom.ts';
import { describeSize } from './inputFiles.ts';
import type { ToolOutcome } from './loop.ts';
import { type EditorInput, editorInput } from './tools.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';

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

const failure = (text: string): ToolOutcome => ({ content: `Error: ${text}`, isError: true });

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
    const loaded = (await activeSkills(deps.store, turn.chatId)).find((entry) => entry.id === id);
    const skill = loaded === undefined ? undefined : turn.snapshot.get(id);
    if (skill === undefined || loaded === undefined || skill.hash !== loaded.hash) return `${absolute}: the skill "${id}" is not loaded in this chat (load it with load_skill first)`;
    return { root: skill.dir, rel: rest.join('/'), shown: absolute, writable: false };
  }
  return `${absolute} is outside the workspace: the editor works in ${workspace} (and can view ${SANDBOX_PATHS.skills}/<id> of loaded skills)`;
}

async function readText(target: Target): Promise<string> {
  const read = await readInside(target.root, target.rel, target.shown, MAX_FILE_BYTES);
  if (read.truncated) throw new WorkspacePathError(`${target.shown} is ${describeSize(read.size)}, larger than the editor's ${describeSize(MAX_FILE_BYTES)}; use bash for it`);
  if (read.bytes.includes(0)) throw new WorkspacePathError(`${target.shown} is a binary file (${describeSize(read.size)}); use bash to inspect it`);
  return read.bytes.toString('utf8');
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

/** Entries a folder view lists; the rest are counted ("and N more"), so one view never crowds out the turn. */
const MAX_VIEW_ENTRIES = 500;

async function viewFolder(target: Target): Promise<string> {
  const lines = [`Files and folders in ${visible(target.shown)} (two levels, hidden ones left out):`];
  let more = 0;
  const add = (line: string) => (lines.length > MAX_VIEW_ENTRIES ? (more += 1) : lines.push(line));
  // By descriptor from the root, never following a link (a script may swap a name for one at any time).
  const walk = (folder: Folder, rel: string, depth: number): void => {
    const names = folder.names().filter((name) => !name.startsWith('.')).sort();
    for (const name of names) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const info = folder.lstat(name);
      if (info === undefined) continue;
      const shown = visible(`${target.shown.replace(/\/$/, '')}/${childRel}`);
      if (info.isSymbolicLink()) add(`${shown} (symlink, not followed)`);
      else if (info.isDirectory()) {
        add(`${shown}/`);
        const child = depth < 2 && lines.length <= MAX_VIEW_ENTRIES ? folder.child(name) : undefined;
        if (child !== undefined) {
          try {
            walk(child, childRel, depth + 1);
          } finally {
            child.close();
          }
        } else if (depth < 2) more += countIn(folder, name);
      } else add(`${shown} (${describeSize(info.size)})`);
    }
  };
  withFolder(target.root, (root) => {
    const folder = openPath(root, components(target.rel), target.shown);
    if (folder === undefined) throw new WorkspacePathError(`${target.shown} does not exist`);
    try {
      walk(folder, target.rel, 1);
    } finally {
      folder.close();
    }
  });
  if (more > 0) lines.push(`… and ${more} more (view a subfolder, or use bash to search)`);
  return lines.join('\n');
}

/** Visible entries of a subfolder the view does not list. */
function countIn(folder: Folder, name: string): number {
  try {
    const child = folder.child(name);
    if (child === undefined) return 0;
    try {
      return child.names().filter((entry) => !entry.startsWith('.')).length;
    } finally {
      child.close();
    }
  } catch {
    return 0;
  }
}

async function view(target: Target, range: [number, number] | undefined): Promise<string> {
  const entry = await entryAt(target.root, target.rel, target.shown);
  if (entry === undefined) throw new WorkspacePathError(`${target.shown} does not exist`);
  if (entry.info.isDirectory()) return viewFolder(target);
  const lines = (await readText(target)).split('\n');
  const [from, to] = range ?? [1, -1];
  const last = to === -1 ? lines.length : Math.min(to, lines.length);
  if (from < 1 || from > Math.max(1, lines.length) || last < from) throw new WorkspacePathError(`view_range [${from}, ${to}] is outside the file's ${lines.length} lines`);
  const numbered = lines.slice(from - 1, last).map((line, index) => `${from + index}: ${line}`).join('\n');
  return numbered.length > MAX_VIEW_CHARS ? `${numbered.slice(0, MAX_VIEW_CHARS)}\n[… cut at ${MAX_VIEW_CHARS} characters; view a smaller range]` : numbered;
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

export async function runEditorTool(deps: ToolDeps, turn: TurnContext, input: unknown): Promise<ToolOutcome> {
  const parsed = editorInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return failure(`str_replace_based_edit_tool input is invalid: ${issue === undefined ? 'bad input' : `${issue.path.join('.') || 'command'} ${issue.message}`} (commands: view, create, str_replace, insert)`);
  }
  const target = await resolveTarget(deps, turn, parsed.data.path);
  if (typeof target === 'string') return failure(target);
  try {
    if (parsed.data.command === 'view') return { content: await view(target, parsed.data.view_range) };
    return { content: await edit(turn, target, parsed.data) };
  } catch (error) {
    if (error instanceof WorkspacePathError) return failure(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    deps.logger.warn({ err: error, chatId: turn.chatId, path: target.shown }, 'editor could not act on a file');
    return failure(`${target.shown}: the file could not be used (${code ?? 'error'})`);
  }
}
