// A chat's workspace in the shared store, so the instance that takes a chat over (a failover, or simply the next
// turn landing elsewhere) finds the files the last run left. The store holds a manifest per chat (path → sha256,
// folders, symlink texts, a version) carrying small files inline, and one content-addressed blob per larger file,
// so a restore costs one read plus one per large file the local copy lacks, and a push sends only changed blobs. Nothing is ever followed: symlinks travel as
// their text, and files are read and written through safeFiles.ts.
import { createHash } from 'node:crypto';
import { chown, lchown, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { scanTree, type TreeScan } from '../exec/workspaceTree.ts';
import type { Store } from '../store/types.ts';
import { type Owner, readInside, writeInside } from './safeFiles.ts';

const manifestSchema = z.object({
  version: z.number().int().nonnegative(),
  /** When every blob's expiry was last pushed forward (ms). */
  blobsAt: z.number(),
  entries: z.array(
    z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('dir'), path: z.string() }),
      z.object({
        kind: z.literal('file'),
        path: z.string(),
        size: z.number().int().nonnegative(),
        sha: z.string().regex(/^[0-9a-f]{64}$/),
        /** A small file's content (base64), carried in the manifest instead of a blob of its own. */
        data: z.string().optional(),
      }),
      z.object({ kind: z.literal('link'), path: z.string(), target: z.string() }),
    ]),
  ),
});
type Manifest = z.infer<typeof manifestSchema>;

/** What this instance last pushed or restored, kept beside the folder: its version and each file's hash by identity. */
const localStateSchema = z.object({
  version: z.number().int().nonnegative(),
  files: z.record(z.string(), z.object({ size: z.number(), mtimeMs: z.number(), ino: z.number(), sha: z.string() })),
});
type LocalState = z.infer<typeof localStateSchema>;

const EMPTY_STATE: LocalState = { version: 0, files: {} };
/** Files up to this size ride inline in the manifest, up to INLINE_TOTAL bytes in all (unpacked documents are many small parts). */
const INLINE_FILE = 64 * 1024;
const INLINE_TOTAL = 4 * 1024 * 1024;
const manifestKey = (chatId: string) => `workspace/${chatId}`;
const blobKey = (sha: string) => `workspace-blob/${sha}`;

export interface SyncContext {
  store: Store;
  chatId: string;
  dir: string;
  /** The folder's local state file. */
  stateFile: string;
  ttlMs: number;
  owner?: Owner;
  now: number;
}

async function readState(file: string): Promise<LocalState> {
  try {
    const parsed = localStateSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.data : EMPTY_STATE;
  } catch {
    return EMPTY_STATE;
  }
}

/** Hashes of the scan's files, reusing the last known hash of a file whose size, time and inode are unchanged. */
async function hashFiles(dir: string, scan: TreeScan, state: LocalState): Promise<Map<string, { sha: string; bytes?: Buffer }>> {
  const hashes = new Map<string, { sha: string; bytes?: Buffer }>();
  await Promise.all(
    [...scan.entries].map(async ([rel, entry]) => {
      if (entry.kind !== 'file') return;
      const known = state.files[rel];
      if (known !== undefined && known.size === entry.size && known.mtimeMs === entry.mtimeMs && known.ino === entry.ino) {
        hashes.set(rel, { sha: known.sha });
        return;
      }
      const read = await readInside(dir, rel, rel, Number.MAX_SAFE_INTEGER).catch(() => undefined);
      if (read !== undefined) hashes.set(rel, { sha: createHash('sha256').update(read.bytes).digest('hex'), bytes: read.bytes });
    }),
  );
  return hashes;
}

/** Pushes the folder to the store (blobs it lacks, then the manifest); returns the version pushed. */
export async function pushWorkspace(context: SyncContext): Promise<number> {
  const { store, dir } = context;
  const [scan, state, stored] = await Promise.all([scanTree(dir), readState(context.stateFile), store.get<unknown>('workspaces', manifestKey(context.chatId))]);
  const previous = manifestSchema.safeParse(stored);
  const before = previous.success ? previous.data : undefined;
  const hashes = await hashFiles(dir, scan, state);
  const known = new Set(before?.entries.flatMap((entry) => (entry.kind === 'file' && entry.data === undefined ? [entry.sha] : [])) ?? []);
  const refresh = before === undefined || context.now - before.blobsAt > context.ttlMs / 2;
  const entries: Manifest['entries'] = [];
  const uploads: Array<Promise<void>> = [];
  const sent = new Set<string>();
  let inline = 0;
  for (const [rel, entry] of [...scan.entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (entry.kind === 'dir') entries.push({ kind: 'dir', path: rel });
    if (entry.kind === 'link') {
      const target = await readlink(path.join(dir, rel)).catch(() => undefined);
      if (target !== undefined) entries.push({ kind: 'link', path: rel, target });
    }
    const hash = entry.kind === 'file' ? hashes.get(rel) : undefined;
    if (hash === undefined) continue;
    if (entry.size <= INLINE_FILE && inline + entry.size <= INLINE_TOTAL) {
      inline += entry.size;
      const bytes = hash.bytes ?? (await readInside(dir, rel, rel, INLINE_FILE)).bytes;
      entries.push({ kind: 'file', path: rel, size: entry.size, sha: hash.sha, data: bytes.toString('base64') });
      continue;
    }
    entries.push({ kind: 'file', path: rel, size: entry.size, sha: hash.sha });
    if (sent.has(hash.sha) || (known.has(hash.sha) && !refresh)) continue;
    sent.add(hash.sha);
    const bytes = hash.bytes ?? (await readInside(dir, rel, rel, Number.MAX_SAFE_INTEGER)).bytes;
    uploads.push(store.set('workspaces', blobKey(hash.sha), bytes.toString('base64'), context.ttlMs * 2));
  }
  await Promise.all(uploads);
  const version = Math.max(before?.version ?? 0, state.version) + 1;
  await store.set('workspaces', manifestKey(context.chatId), { version, blobsAt: refresh ? context.now : (before?.blobsAt ?? context.now), entries } satisfies Manifest, context.ttlMs);
  await writeState(context.stateFile, version, scan, hashes);
  return version;
}

async function writeState(file: string, version: number, scan: TreeScan, hashes: Map<string, { sha: string }>): Promise<void> {
  const files: LocalState['files'] = {};
  for (const [rel, entry] of scan.entries) {
    const hash = hashes.get(rel);
    if (entry.kind === 'file' && hash !== undefined) files[rel] = { size: entry.size, mtimeMs: entry.mtimeMs, ino: entry.ino, sha: hash.sha };
  }
  await writeFile(file, JSON.stringify({ version, files } satisfies LocalState), { mode: 0o600 });
}

/**
 * Brings the folder to the store's version when the store holds a newer one than this instance last saw: fetches
 * the files whose content differs, removes what the manifest no longer lists. Returns the files fetched, or
 * undefined when the local folder was current.
 */
export async function restoreWorkspace(context: SyncContext): Promise<{ fetched: number; bytes: number } | undefined> {
  const { store, dir } = context;
  const [stored, state] = await Promise.all([store.get<unknown>('workspaces', manifestKey(context.chatId)), readState(context.stateFile)]);
  const parsed = manifestSchema.safeParse(stored);
  if (!parsed.success || parsed.data.version <= state.version) return undefined;
  const manifest = parsed.data;
  const scan = await scanTree(dir);
  const hashes = await hashFiles(dir, scan, state);
  const wanted = new Map(manifest.entries.map((entry) => [entry.path, entry]));
  // What the manifest does not list, or lists as another kind, goes first (removing a link removes the link only).
  for (const [rel, entry] of [...scan.entries].sort(([a], [b]) => (a < b ? 1 : -1))) {
    const want = wanted.get(rel);
    if (want === undefined || want.kind !== entry.kind || want.kind === 'link') await rm(path.join(dir, rel), { recursive: true, force: true });
  }
  const blobs = new Map<string, Promise<string | undefined>>();
  let fetched = 0;
  let bytes = 0;
  for (const entry of manifest.entries) {
    if (entry.kind === 'dir') {
      await mkdir(path.join(dir, entry.path), { recursive: true, mode: 0o755 });
      if (context.owner !== undefined) await chown(path.join(dir, entry.path), context.owner.uid, context.owner.gid);
    } else if (entry.kind === 'file' && hashes.get(entry.path)?.sha !== entry.sha) {
      if (!blobs.has(entry.sha)) blobs.set(entry.sha, entry.data === undefined ? store.get<string>('workspaces', blobKey(entry.sha)) : Promise.resolve(entry.data));
    }
  }
  for (const entry of manifest.entries) {
    if (entry.kind === 'link') {
      await symlink(entry.target, path.join(dir, entry.path)).catch(() => undefined);
      if (context.owner !== undefined) await lchown(path.join(dir, entry.path), context.owner.uid, context.owner.gid).catch(() => undefined);
    }
    if (entry.kind !== 'file' || !blobs.has(entry.sha)) continue;
    const data = await blobs.get(entry.sha);
    if (data === undefined) throw new Error(`the workspace of ${context.chatId} names a file (${entry.path}) whose content the store no longer holds`);
    const content = Buffer.from(data, 'base64');
    await writeInside(dir, entry.path, entry.path, content, context.owner);
    fetched += 1;
    bytes += content.byteLength;
  }
  // Every listed file now holds its manifest content: its hash is known without reading it again.
  const shas = new Map(manifest.entries.flatMap((entry) => (entry.kind === 'file' ? [[entry.path, { sha: entry.sha }] as const] : [])));
  await writeState(context.stateFile, manifest.version, await scanTree(dir), shas);
  return { fetched, bytes };
}
