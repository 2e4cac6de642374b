// Where the chat workspaces live on this host (WORKSPACES_DIR), checked once at start.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { type Config, ConfigError } from '../config/config.ts';
import type { Logger } from '../ops/log.ts';
import { unreachableParent } from './chatWorkspaces.ts';

/**
 * Where chat workspaces live. As root, runs take uids of their own and bwrap opens the workspace as that uid, so
 * every folder above it must let others enter. A WORKSPACES_DIR that was set and cannot be entered stops the
 * start (with the fix); the default (./data/workspaces) inside a private folder (root's home, a 0700 temp folder)
 * moves to /var/tmp, which keeps files across reboots, with a warning saying so.
 */
export function chooseWorkspaceRoot(config: Config, logger: Logger): string {
  const { root, rootSet } = config.workspace;
  const blocked = process.getuid?.() === 0 && config.sandbox.mode === 'bwrap' ? unreachableParent(root) : undefined;
  if (blocked === undefined) return root;
  const fix = 'make it enterable (chmod o+x) or set WORKSPACES_DIR to a folder that is';
  if (rootSet) throw new ConfigError(`WORKSPACES_DIR (${root}) cannot be entered by the sandbox's user: ${blocked}; ${fix}.`);
  const fallback = path.join('/var/tmp', `skillbot-workspaces-${createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 12)}`);
  logger.warn({ workspaces: fallback }, `the sandbox's user cannot enter ${root} (${blocked}), so chat workspaces are kept in ${fallback}; ${fix}`);
  return fallback;
}
