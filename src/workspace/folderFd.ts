// Every operation the bot makes on a chat's files starts from an open folder descriptor and goes one name at a
// time, never following a link: scripts (and, once a script opened a folder to all, other local accounts) may swap
// any name for a link between a check and a use. Node has no openat(), but Linux resolves /proc/self/fd/<fd>/<name>
// from the open folder itself, and O_NOFOLLOW / lstat / unlink / rename then act on that last name only: the same
// guarantee, with a path that stays short however deep the folder is (no PATH_MAX).
import { closeSync, constants, fchmodSync, fchownSync, fstatSync, lchownSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, renameSync, rmdirSync, type Stats, symlinkSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/** A file-system problem the model (or the person) can act on, in one sentence, naming /workspace paths only. */
export class WorkspacePathError extends Error {
  override name = 'WorkspacePathError';
}

export interface Owner {
  uid: number;
  gid: number;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Folders deeper than this are not held open at once: a walk says so, a removal moves them up first. */
const MAX_HELD_DEPTH = 256;

/** One component of a path: never empty, `.`, `..`, holding `/` or NUL, or longer than a file system takes. */
export function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0') && Buffer.byteLength(name) <= 255;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** An open folder. Names given to it are single components (checked); nothing reached through it follows a link. */
export class Folder {
  private constructor(readonly fd: number) {}

  /** Opens a folder of the bot's own by path (its parents are the operator's): the last component must not be a link. */
  static open(absolute: string): Folder {
    return new Folder(openSync(absolute, DIR_FLAGS));
  }

  /** A second descriptor of an open folder (its /proc link is followed on purpose: it is the folder itself). */
  static reopen(folder: Folder): Folder {
    return new Folder(openSync(folder.at(), constants.O_RDONLY | constants.O_DIRECTORY));
  }

  /** The path the kernel resolves from this folder: for `name`, or the folder itself. */
  at(name?: string): string {
    if (name === undefined) return `/proc/self/fd/${this.fd}`;
    if (!isPlainName(name)) throw new WorkspacePathError(`"${name}" is not a plain file name`);
    return `/proc/self/fd/${this.fd}/${name}`;
  }

  names(): string[] {
    return readdirSync(this.at());
  }

  stat(): Stats {
    return fstatSync(this.fd);
  }

  /** What `name` is, without following it; undefined when it does not exist. */
  lstat(name: string): Stats | undefined {
    try {
      return lstatSync(this.at(name));
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Opens the folder `name`; undefined when it does not exist; throws when it is a link or not a folder. */
  child(name: string): Folder | undefined {
    try {
      return new Folder(openSync(this.at(name), DIR_FLAGS));
    } catch (error) {
      const code = codeOf(error);
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP' || code === 'ENOTDIR') throw new NotAFolder(name, this.lstat(name)?.isSymbolicLink() === true);
      throw error;
    }
  }

  /** Opens the folder `name`, making it (mode, owner) when missing. */
  childOrMake(name: string, mode: number, owner?: Owner): Folder {
    const existing = this.child(name);
    if (existing !== undefined) return existing;
    try {
      mkdirSync(this.at(name), { mode });
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
    }
    const made = this.child(name);
    if (made === undefined) throw new WorkspacePathError(`${name} vanished while it was made`);
    // mkdir applies the umask: the mode is set on the descriptor, as is the owner.
    fchmodSync(made.fd, mode);
    if (owner !== undefined) fchownSync(made.fd, owner.uid, owner.gid);
    return made;
  }

  /** Opens the file `name` with O_NOFOLLOW added to `flags`. */
  openFile(name: string, flags: number, mode = 0o644): number {
    return openSync(this.at(name), flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  }

  unlink(name: string): void {
    unlinkSync(this.at(name));
  }

  rmdir(name: string): void {
    rmdirSync(this.at(name));
  }

  rename(name: string, to: Folder, toName: string): void {
    renameSync(this.at(name), to.at(toName));
  }

  readlink(name: string): string {
    return readlinkSync(this.at(name));
  }

  symlink(target: string, name: string, owner?: Owner): void {
    symlinkSync(target, this.at(name));
    if (owner !== undefined) lchownSync(this.at(name), owner.uid, owner.gid);
  }

  /** Sets the folder's own mode and owner, on the descriptor. */
  reset(mode: number, owner?: Owner): void {
    if (owner !== undefined) fchownSync(this.fd, owner.uid, owner.gid);
    fchmodSync(this.fd, mode);
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Removes `name` whatever it is, a folder with everything in it at any depth; nothing is followed. */
  remove(name: string): void {
    const info = this.lstat(name);
    if (info === undefined) return;
    if (!info.isDirectory()) return this.unlink(name);
    removeTree(this, name);
  }
}

/** `name` is a link or another kind of file where a folder was expected. */
export class NotAFolder extends WorkspacePathError {
  constructor(
    readonly entry: string,
    readonly link: boolean,
  ) {
    super(link ? `${entry} is a symlink, which is never followed` : `${entry} is not a folder`);
  }
}

/**
 * Removes the folder `name` of `parent` and everything under it. Depth first, holding one descriptor per level; a
 * folder deeper than MAX_HELD_DEPTH is first moved up into the folder being removed, so any depth goes.
 */
function removeTree(parent: Folder, name: string): void {
  const top = parent.child(name);
  if (top === undefined) return;
  type Frame = { folder: Folder; name: string; pending: string[] };
  const stack: Frame[] = [{ folder: top, name, pending: top.names() }];
  try {
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame;
      const entry = frame.pending.pop();
      if (entry === undefined) {
        // Listed again once empty: deeper folders may have been moved up into it.
        frame.pending = frame.folder.names();
        if (frame.pending.length > 0) continue;
        stack.pop();
        frame.folder.close();
        (stack.length === 0 ? parent : (stack[stack.length - 1] as Frame).folder).rmdir(frame.name);
        continue;
      }
      const info = frame.folder.lstat(entry);
      if (info === undefined) continue;
      if (!info.isDirectory()) {
        frame.folder.unlink(entry);
      } else if (stack.length >= MAX_HELD_DEPTH) {
        frame.folder.rename(entry, top, `.deep-${randomBytes(8).toString('hex')}`);
      } else {
        const child = frame.folder.child(entry);
        if (child === undefined) continue;
        // Removable by the bot even when a script left it without write permission.
        fchmodSync(child.fd, 0o700);
        stack.push({ folder: child, name: entry, pending: child.names() });
      }
    }
  } finally {
    for (const frame of stack) frame.folder.close();
  }
}

/**
 * `rel` (`/`-separated, relative) as components, refusing what could climb out or is not a name: `..`, an
 * absolute path, NUL, a component over 255 bytes.
 */
export function components(rel: string): string[] {
  if (rel.includes('\0')) throw new WorkspacePathError('the path contains a NUL byte');
  const parts = rel.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new WorkspacePathError(`the path "${rel}" climbs out with ".."`);
  const long = parts.find((part) => Buffer.byteLength(part) > 255);
  if (long !== undefined) throw new WorkspacePathError(`the path "${rel}" has a name longer than 255 bytes`);
  return parts;
}

/**
 * Opens the folder `parts` names under `root` (each component a real folder, never a link). With `make`, missing
 * folders are made (mode 0755, the owner's). Undefined when one is missing and none are made.
 */
export function openPath(root: Folder, parts: readonly string[], shown: string, make?: { owner?: Owner }): Folder | undefined {
  let current = root;
  try {
    for (const part of parts) {
      const next = make === undefined ? current.child(part) : current.childOrMake(part, 0o755, make.owner);
      if (current !== root) current.close();
      current = next as Folder;
      if (next === undefined) return undefined;
    }
  } catch (error) {
    if (current !== root) current.close();
    if (error instanceof NotAFolder) throw new WorkspacePathError(error.link ? `${shown} goes through a symlink (${error.entry}), which is never followed` : `${shown}: ${error.entry} is not a folder`);
    throw error;
  }
  // A second descriptor of the root when no component was walked, so every caller closes what it gets.
  return current === root ? Folder.reopen(root) : current;
}

/**
 * Folders of one tree held open while many files are written in them (a restore): each is walked to once, from its
 * nearest open ancestor, and made (mode 0755, the owner's) when missing. Close it when done.
 */
export class OpenFolders {
  private readonly held = new Map<string, Folder>();
  private static readonly MAX_HELD = 128;

  constructor(
    root: string,
    private readonly owner?: Owner,
  ) {
    this.held.set('', Folder.open(root));
  }

  /** The folder `rel` (`''`: the root), made when missing; never reached through a link. */
  get(rel: string): Folder {
    const cached = this.held.get(rel);
    if (cached !== undefined) return cached;
    if (this.held.size >= OpenFolders.MAX_HELD) this.release();
    const parts = components(rel);
    const parent = this.get(parts.slice(0, -1).join('/'));
    let folder: Folder;
    try {
      folder = parent.childOrMake(parts[parts.length - 1] as string, 0o755, this.owner);
    } catch (error) {
      if (error instanceof NotAFolder) throw new WorkspacePathError(error.link ? `${rel} goes through a symlink (${error.entry}), which is never followed` : `${rel}: ${error.entry} is not a folder`);
      throw error;
    }
    this.held.set(rel, folder);
    return folder;
  }

  /** Closes every folder but the root. */
  private release(): void {
    for (const [rel, folder] of this.held) {
      if (rel === '') continue;
      folder.close();
      this.held.delete(rel);
    }
  }

  close(): void {
    for (const folder of this.held.values()) folder.close();
    this.held.clear();
  }
}

/** Runs `use` with the folder at `absolute` open, closing it after. */
export function withFolder<T>(absolute: string, use: (folder: Folder) => T): T {
  const folder = Folder.open(absolute);
  try {
    return use(folder);
  } finally {
    folder.close();
  }
}
