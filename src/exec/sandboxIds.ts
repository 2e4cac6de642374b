// Which uid a sandbox runs as when the bot is root: the one place that divides the range above SCRIPT_SANDBOX_UID_BASE
// (slots, then chats, then long-running services), so no two kinds of sandbox ever share an id by accident.
import type { RunOwner } from './runDirs.ts';

/** Slot N runs as base + N (N < the slots' count, at most CHAT_OFFSET). */
const CHAT_OFFSET = 1024;
/** A chat's runs share one uid (its workspace files stay its own): base + 1024 … base + 61023. */
const CHAT_SPREAD = 60_000;
/** A service (a stdio MCP server of one world) has one uid of its own: base + 62000 … base + 63999. */
const SERVICE_OFFSET = 62_000;
const SERVICE_SPREAD = 2000;

/** FNV-1a of a key: stable across runs, restarts and instances. */
function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

export interface SandboxIds {
  /** A run's identity: its chat's (a run in a workspace), else its slot's. Undefined when the bot is not root. */
  run(slot: number, chatId?: string): RunOwner | undefined;
  /** A long-running service's identity, one per key (e.g. `mcp:<server>:<world>`). */
  service(key: string): RunOwner | undefined;
  /** Who owns a chat's workspace files: its runs' uid, when runs are sandboxed as root. */
  workspaceOwner(chatId: string): RunOwner | undefined;
}

export function sandboxIds(uidBase: number, { root, sandboxed }: { root: boolean; sandboxed: boolean }): SandboxIds {
  const at = (offset: number): RunOwner | undefined => (root ? { uid: uidBase + offset, gid: uidBase + offset } : undefined);
  const chat = (chatId: string) => CHAT_OFFSET + (fnv1a(chatId) % CHAT_SPREAD);
  return {
    run: (slot, chatId) => at(chatId === undefined ? slot : chat(chatId)),
    service: (key) => at(SERVICE_OFFSET + (fnv1a(key) % SERVICE_SPREAD)),
    workspaceOwner: (chatId) => (sandboxed ? at(chat(chatId)) : undefined),
  };
}
