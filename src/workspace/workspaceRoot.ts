// Where the chat workspaces live on this host (WORKSPACES_DIR), checked once at start. As root, runs take uids of
// their own and bwrap opens the workspace as that uid, so every folder above it must let others enter; and the bot
// writes there as root, so no folder on the way may be one another local account can swap (owned by someone else,
// or writable by others without the sticky bit).
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Config, ConfigError } from '../config/config.ts';
import type { Logger } from '../ops/log.ts';

/** Where a workspace root is made when the default one cannot be entered: root's own, sticky, on the disk. */
const FALLBACK_PARENT = '/var/tmp';
/** Beside the default root: the random folder it moved to, read again at the next start. */
const POINTER = 'moved-to';

/**
 * Where chat workspaces live. A WORKSPACES_DIR that was set and cannot be entered (or could be swapped by another
 * account) stops the start with the fix. The default (./data/workspaces) inside a private folder (root's home, a
 * 0700 temp folder) moves to a folder with a random name under /var/tmp, made by the bot, checked at every level
 * and remembered in ./data/workspaces/moved-to, with a warning saying so: never a name another account can guess
 * and make first.
 */
export function chooseWorkspaceRoot(config: Config, logger: Logger): string {
  const { root, rootSet } = config.workspace;
  const asRoot = process.getuid?.() === 0;
  // Only root can be turned against the host through a folder someone else controls (chown, writes as root).
  const swappable = asRoot ? untrusted(root) : undefined;
  if (swappable !== undefined) throw new ConfigError(`WORKSPACES_DIR (${root}) is not safe for the bot to write in: ${swappable}; choose a folder only the bot's user and root can change.`);
  const blocked = asRoot && config.sandbox.mode === 'bwrap' ? unreachableParent(root) : undefined;
  if (blocked === undefined) return root;
  const fix = 'make it enterable (chmod o+x) or set WORKSPACES_DIR to a folder that is';
  if (rootSet) throw new ConfigError(`WORKSPACES_DIR (${root}) cannot be entered by the sandbox's user: ${blocked}; ${fix}.`);
  const moved = movedRoot(root);
  logger.warn({ workspaces: moved }, `the sandbox's user cannot enter ${root} (${blocked}), so chat workspaces are kept in ${moved}; ${fix}`);
  return moved;
}

/** The random folder the default root moved to: the remembered one when it still checks out, else a new one. */
function movedRoot(root: string): string {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const pointer = path.join(root, POINTER);
  let remembered: string | undefined;
  try {
    remembered = readFileSync(pointer, 'utf8').trim();
  } catch {
    remembered = undefined;
  }
  if (remembered !== undefined && path.dirname(remembered) === FALLBACK_PARENT && untrusted(remembered) === undefined && isOwnFolder(remembered)) return remembered;
  const parentProblem = untrusted(FALLBACK_PARENT, { holder: true });
  if (parentProblem !== undefined) throw new ConfigError(`the default WORKSPACES_DIR cannot be entered by the sandbox's user, and ${FALLBACK_PARENT} is no safe place for it either (${parentProblem}); set WORKSPACES_DIR to a folder others may enter.`);
  const made = mkdtempSync(path.join(FALLBACK_PARENT, 'skillbot-workspaces-'));
  chmodSync(made, 0o711);
  writeFileSync(pointer, `${made}\n`, { mode: 0o600 });
  return made;
}

function isOwnFolder(dir: string): boolean {
  try {
    const info = lstatSync(dir);
    return info.isDirectory() && info.uid === process.getuid?.();
  } catch {
    return false;
  }
}

/**
 * Why another local account could swap `dir` or a folder above it, or undefined: each existing level (links
 * resolved) must belong to root or the bot's user, and be writable by no one else unless sticky (as /tmp is, where
 * others cannot rename what is not theirs). `dir` itself, when it exists, must not be writable by others, unless it
 * is only the `holder` of a folder the bot makes (then sticky will do).
 */
export function untrusted(dir: string, { holder = false }: { holder?: boolean } = {}): string | undefined {
  const me = process.getuid?.();
  if (me === undefined) return undefined;
  let existing = path.resolve(dir);
  while (!exists(existing)) existing = path.dirname(existing);
  const real = realpathSync(existing);
  const target = existing === path.resolve(dir) && !holder ? real : undefined;
  const levels: string[] = [];
  for (let current = real; ; current = path.dirname(current)) {
    levels.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const level of levels) {
    const info = lstatSync(level);
    const mode = (info.mode & 0o7777).toString(8).padStart(4, '0');
    if (info.uid !== 0 && info.uid !== me) return `${level} belongs to uid ${info.uid}`;
    const sticky = (info.mode & 0o1000) !== 0;
    const othersWrite = (info.mode & 0o022) !== 0;
    if (othersWrite && (level === target || !sticky)) return `${level} is mode ${mode}, writable by other accounts`;
  }
  return undefined;
}

function exists(target: string): boolean {
  try {
    lstatSync(target);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the sandbox user (another uid, when the bot is root) could not reach `dir`: the first existing folder on
 * the way that others may not enter, or undefined when every one may be entered. bwrap opens the folder it
 * mounts as that user, so a private parent (a home folder, a 0700 temp folder) hides the workspace from it.
 */
export function unreachableParent(dir: string): string | undefined {
  let current = path.resolve(dir);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const folder of chain) {
    let mode: number;
    try {
      mode = statSync(folder).mode;
    } catch {
      return undefined; // Not made yet: it is created traversable.
    }
    if ((mode & 0o001) === 0) return `${folder} is mode ${(mode & 0o777).toString(8).padStart(4, '0')}`;
  }
  return undefined;
}
