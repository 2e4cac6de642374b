// The editor's `view` of a folder: two levels, hidden entries left out, never following a link. Bounded in entries
// and in characters (500 names of 200 characters once made a 109,125-character result), saying how many entries
// it left out, so one view never crowds out the turn.
import { components, type Folder, openPath, withFolder } from '../workspace/folderFd.ts';
import { WorkspacePathError } from '../workspace/safeFiles.ts';
import { visible } from '../text/visible.ts';
import { describeSize } from './inputFiles.ts';

/** Entries a folder view lists at most. */
export const MAX_VIEW_ENTRIES = 500;
/** Characters a folder view holds at most (its lines; the closing count comes on top). */
export const MAX_VIEW_FOLDER_CHARS = 20_000;

/** The listing of the folder at `rel` under `root`, shown as `shown`. */
export function viewFolder(root: string, rel: string, shown: string): string {
  const lines = [`Files and folders in ${visible(shown)} (two levels, hidden ones left out):`];
  let chars = lines[0]!.length;
  let more = 0;
  const full = () => lines.length > MAX_VIEW_ENTRIES || chars >= MAX_VIEW_FOLDER_CHARS;
  const add = (line: string): void => {
    if (full() || chars + 1 + line.length > MAX_VIEW_FOLDER_CHARS) {
      more += 1;
      return;
    }
    lines.push(line);
    chars += 1 + line.length;
  };
  // By descriptor from the root, never following a link (a script may swap a name for one at any time).
  const walk = (folder: Folder, at: string, depth: number): void => {
    const names = folder.names().filter((name) => !name.startsWith('.')).sort();
    for (const name of names) {
      const childRel = at === '' ? name : `${at}/${name}`;
      const info = folder.lstat(name);
      if (info === undefined) continue;
      const path = visible(`${shown.replace(/\/$/, '')}/${childRel}`);
      if (info.isSymbolicLink()) add(`${path} (symlink, not followed)`);
      else if (info.isDirectory()) {
        add(`${path}/`);
        const child = depth < 2 && !full() ? folder.child(name) : undefined;
        if (child !== undefined) {
          try {
            walk(child, childRel, depth + 1);
          } finally {
            child.close();
          }
        } else if (depth < 2) more += countIn(folder, name);
      } else add(`${path} (${describeSize(info.size)})`);
    }
  };
  withFolder(root, (top) => {
    const folder = openPath(top, components(rel), shown);
    if (folder === undefined) throw new WorkspacePathError(`${shown} does not exist`);
    try {
      walk(folder, '', 1);
    } finally {
      folder.close();
    }
  });
  if (more > 0) lines.push(`… and ${more} more not shown (the view stops at ${MAX_VIEW_ENTRIES} entries or ${MAX_VIEW_FOLDER_CHARS.toLocaleString('en-US')} characters): view a subfolder, or use bash to search`);
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
