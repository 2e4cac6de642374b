// A chat's workspace in the shared store, so the instance that takes a chat over (a failover, or simply the next
// turn landing elsewhere) finds the files the last run left. The store is trusted no more than a script: the
// manifest is sealed and its paths checked (storeManifest.ts), every chunk and file is checked against its sha256
// before it takes its name, and nothing is ever followed (symlinks travel as their text; every file is reached by
// descriptor). Files move in chunks, never whole in memory; a chat's stored bytes stay within its workspace bound,
// and chunks no manifest names any more are removed.
import { createHash } from 'node:crypto';
import { closeSync, constants, fchownSync, readSync } from 'node:fs';
import path from 'node:path';
import { scanTree, type TreeScan } from './workspaceTree.ts';
import type { Store } from '../store/types.ts';
import type { ManifestSeal } from './manifestSeal.ts';
import { OpenFolders, type Owner } from './folderFd.ts';
import { openForRead, readInside, readlinkInside, removeInside, writeAll } from './safeFiles.ts';
import { blobKey, CHUNK_BYTES, chunksOf, type FileEntry, INLINE_FILE, INLINE_TOTAL, type KnownFile, type LocalState, type Manifest, readManifest, readState, writeManifest, writeState } from './storeManifest.ts';

export interface SyncContext {
  store: Store;
  seal: ManifestSeal;
  chatId: string;
  /** The chat's files. */
  dir: string;
  /** The bot's own folder of the chat (its sync record). */
  metaDir: string;
  ttlMs: number;
  /** The workspace bound: at most this many bytes of the chat's files are kept in the store. */
  maxBytes: number;
  owner?: Owner;
  now: number;
}

/** Chunk uploads (or one file's chunk fetches) in flight at once; larger files fetched at once. */
const IN_FLIGHT = 4;
const FILES_IN_FLIGHT = 4;
let restoreSequence = 0;

const known = (entry: FileEntry): KnownFile => ({ size: entry.size, mtimeMs: 0, ino: 0, sha: entry.sha, ...(entry.chunks === undefined ? {} : { chunks: entry.chunks }) });

/** Reads a file chunk by chunk: its sha256, its chunks' hashes, and each chunk handed to `each` as it goes. */
async function streamFile(dir: string, rel: string, each?: (sha: string, chunk: Buffer) => Promise<void>): Promise<{ sha: string; chunks: string[] }> {
  const { fd } = openForRead(dir, rel, rel);
  try {
    const whole = createHash('sha256');
    const chunks: string[] = [];
    const buffer = Buffer.alloc(CHUNK_BYTES);
    for (;;) {
      let filled = 0;
      while (filled < CHUNK_BYTES) {
        const read = readSync(fd, buffer, filled, CHUNK_BYTES - filled, null);
        if (read === 0) break;
        filled += read;
      }
      if (filled === 0 && chunks.length > 0) break;
      const chunk = buffer.subarray(0, filled);
      whole.update(chunk);
      const sha = createHash('sha256').update(chunk).digest('hex');
      chunks.push(sha);
      if (each !== undefined) await each(sha, Buffer.from(chunk));
      if (filled < CHUNK_BYTES) break;
    }
    return { sha: whole.digest('hex'), chunks };
  } finally {
    closeSync(fd);
  }
}

const unchanged = (known: KnownFile | undefined, entry: { size: number; mtimeMs: number; ino: number }): known is KnownFile =>
  known !== undefined && known.size === entry.size && known.mtimeMs === entry.mtimeMs && known.ino === entry.ino;

/** Pushes the folder to the store (chunks it lacks, then the sealed manifest); returns the version and the files left out. */
export async function pushWorkspace(context: SyncContext): Promise<{ version: number; left: string[] }> {
  const { store, dir, chatId } = context;
  const [scan, state, stored] = await Promise.all([scanTree(dir), readState(context.metaDir), readManifest(store, context.seal, chatId)]);
  const before = stored.ok ? stored.manifest : undefined;
  const refresh = before === undefined || context.now - before.blobsAt > context.ttlMs / 2;
  const held = refresh ? new Set<string>() : chunksOf(before);
  const entries: Manifest['entries'] = [];
  const files: LocalState['files'] = {};
  const left: string[] = [];
  let inflight: Array<Promise<void>> = [];
  const upload = async (sha: string, chunk: Buffer) => {
    if (held.has(sha)) return;
    held.add(sha);
    inflight.push(store.set('workspaces', blobKey(chatId, sha), chunk.toString('base64'), context.ttlMs * 2));
    if (inflight.length >= IN_FLIGHT) await Promise.all(inflight.splice(0));
  };
  let storedBytes = 0;
  let inline = 0;
  for (const [rel, entry] of [...scan.entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (entry.kind === 'dir') entries.push({ kind: 'dir', path: rel });
    if (entry.kind === 'link') {
      const target = readlinkInside(dir, rel);
      if (target !== undefined) entries.push({ kind: 'link', path: rel, target });
    }
    if (entry.kind !== 'file') continue;
    // The store keeps at most the workspace bound of a chat's bytes; what is over it stays on this host only.
    if (storedBytes + entry.size > context.maxBytes) {
      left.push(rel);
      continue;
    }
    try {
      const known = state.files[rel];
      let file: FileEntry;
      if (entry.size <= INLINE_FILE && inline + entry.size <= INLINE_TOTAL) {
        const read = await readInside(dir, rel, rel, INLINE_FILE);
        if (read.truncated) throw new Error('grew while it was read');
        inline += read.size;
        file = { kind: 'file', path: rel, size: read.size, sha: createHash('sha256').update(read.bytes).digest('hex'), data: read.bytes.toString('base64') };
      } else if (unchanged(known, entry) && known.chunks !== undefined && known.chunks.every((sha) => held.has(sha))) {
        file = { kind: 'file', path: rel, size: entry.size, sha: known.sha, chunks: known.chunks };
      } else {
        const streamed = await streamFile(dir, rel, upload);
        file = { kind: 'file', path: rel, size: entry.size, ...streamed };
      }
      entries.push(file);
      storedBytes += file.size;
      files[rel] = { size: entry.size, mtimeMs: entry.mtimeMs, ino: entry.ino, sha: file.sha, ...(file.chunks === undefined ? {} : { chunks: file.chunks }) };
    } catch {
      left.push(rel); // A link or a hard-linked file where a file was, or gone: not copied.
    }
  }
  await Promise.all(inflight);
  inflight = [];
  const version = Math.max(before?.version ?? 0, state.version) + 1;
  const manifest: Manifest = { version, blobsAt: refresh ? context.now : (before?.blobsAt ?? context.now), entries };
  await writeManifest(store, context.seal, chatId, manifest, context.ttlMs);
  // Chunks the new manifest no longer names (an earlier version of a file) go now, not after their TTL.
  const kept = chunksOf(manifest);
  await Promise.all([...chunksOf(before)].filter((sha) => !kept.has(sha)).map((sha) => store.delete('workspaces', blobKey(chatId, sha))));
  await writeState(context.metaDir, { version, files });
  return { version, left };
}

/** The local files' hashes, reusing the last known hash of a file whose size, time and inode are unchanged. */
async function localHashes(dir: string, scan: TreeScan, state: LocalState): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const [rel, entry] of scan.entries) {
    if (entry.kind !== 'file') continue;
    const known = state.files[rel];
    if (unchanged(known, entry)) hashes.set(rel, known.sha);
    else {
      const streamed = await streamFile(dir, rel).catch(() => undefined);
      if (streamed !== undefined) hashes.set(rel, streamed.sha);
    }
  }
  return hashes;
}

const split = (rel: string) => ({ parent: path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel), name: path.posix.basename(rel) });

/**
 * Writes one file under a temporary name from `body` (which hands its bytes to `write`), checks it, and only then
 * gives it its name. A chunked file is checked chunk by chunk against the sealed list (`body` does it); a small one
 * the manifest carries, whole against its sha256.
 */
async function placeFile(context: SyncContext, folders: OpenFolders, entry: FileEntry, body: (write: (bytes: Buffer) => void) => Promise<void> | void): Promise<void> {
  const { parent, name } = split(entry.path);
  const temporary = `.skillbot-restore-${process.pid}-${(restoreSequence += 1)}`;
  const fd = folders.get(parent).openFile(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  const whole = createHash('sha256');
  const drop = () => folders.get(parent).remove(temporary);
  try {
    if (context.owner !== undefined) fchownSync(fd, context.owner.uid, context.owner.gid);
    await body((bytes) => {
      if (entry.data !== undefined) whole.update(bytes);
      writeAll(fd, bytes);
    });
  } catch (error) {
    closeSync(fd);
    drop();
    throw error;
  }
  closeSync(fd);
  if (entry.data !== undefined && whole.digest('hex') !== entry.sha) {
    drop();
    throw new Error('its content does not match its hash');
  }
  const folder = folders.get(parent);
  folder.remove(name);
  folder.rename(temporary, folder, name);
}

/** A larger file's chunks from the store, a few in flight, each checked against its hash. */
function chunksFrom(context: SyncContext, names: readonly string[]) {
  return async (write: (bytes: Buffer) => void): Promise<void> => {
    const pieces: Array<Promise<string | undefined>> = [];
    let next = 0;
    const fetch = () => context.store.get<string>('workspaces', blobKey(context.chatId, names[next++] as string));
    while (pieces.length < IN_FLIGHT && next < names.length) pieces.push(fetch());
    for (let index = 0; pieces.length > 0; index += 1) {
      const data = await pieces.shift();
      if (next < names.length) pieces.push(fetch());
      if (data === undefined) throw new Error('the store no longer holds its content');
      const bytes = Buffer.from(data, 'base64');
      if (createHash('sha256').update(bytes).digest('hex') !== names[index]) throw new Error('a chunk does not match its hash');
      write(bytes);
    }
  };
}

/**
 * Brings the folder to the store's version when the store holds a newer one than this instance last saw: fetches
 * the files whose content differs, removes what the manifest no longer lists. Returns what was fetched (and
 * refused), why the store's copy was ignored (its manifest fails its seal or its checks: nothing is written), or
 * undefined when the local folder was current.
 */
export async function restoreWorkspace(context: SyncContext): Promise<{ fetched: number; bytes: number; refused: string[] } | { ignored: string } | undefined> {
  const { store, dir } = context;
  const [stored, state] = await Promise.all([readManifest(store, context.seal, context.chatId), readState(context.metaDir)]);
  if (!stored.ok) {
    if (stored.why === 'absent') return undefined;
    return { ignored: stored.why === 'unsealed' ? "its manifest is not sealed with this bot's state key" : `its manifest is invalid (${stored.detail ?? 'bad shape'})` };
  }
  const manifest = stored.manifest;
  if (manifest.version <= state.version) return undefined;
  const scan = await scanTree(dir);
  const hashes = await localHashes(dir, scan, state);
  const wanted = new Map(manifest.entries.map((entry) => [entry.path, entry]));
  // What the manifest does not list, or lists as another kind, goes first (removing a link removes the link only).
  for (const [rel, entry] of [...scan.entries].sort(([a], [b]) => (a < b ? 1 : -1))) {
    const want = wanted.get(rel);
    if (want === undefined || want.kind !== entry.kind || want.kind === 'link') removeInside(dir, rel);
  }
  const refused: string[] = [];
  let fetched = 0;
  let bytes = 0;
  let budget = context.maxBytes;
  const files: LocalState['files'] = {};
  const wanting: FileEntry[] = [];
  const folders = new OpenFolders(dir, context.owner);
  try {
    for (const entry of manifest.entries) {
      try {
        const { parent, name } = split(entry.path);
        if (entry.kind === 'dir') folders.get(entry.path);
        if (entry.kind === 'link') folders.get(parent).symlink(entry.target, name, context.owner);
        if (entry.kind !== 'file') continue;
        budget -= entry.size;
        if (budget < 0) throw new Error('over the workspace bound');
        if (hashes.get(entry.path) !== entry.sha) wanting.push(entry);
        else files[entry.path] = known(entry);
      } catch (error) {
        refused.push(`${entry.path}: ${(error as Error).message}`);
      }
    }
    const place = async (entry: FileEntry, body: (write: (bytes: Buffer) => void) => Promise<void> | void): Promise<void> => {
      try {
        await placeFile(context, folders, entry, body);
        fetched += 1;
        bytes += entry.size;
        files[entry.path] = known(entry);
      } catch (error) {
        refused.push(`${entry.path}: ${(error as Error).message}`);
      }
    };
    // Larger files a few at a time, each a few chunks at a time (the store's latency overlaps, memory stays
    // bounded); the small ones the manifest carries are written meanwhile.
    const chunked = wanting.filter((entry) => entry.data === undefined);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let entry = chunked[next++]; entry !== undefined; entry = chunked[next++]) await place(entry, chunksFrom(context, entry.chunks ?? []));
    };
    const fetching = Promise.all(Array.from({ length: FILES_IN_FLIGHT }, worker));
    let written = 0;
    for (const entry of wanting) {
      const data = entry.data;
      if (data === undefined) continue;
      await place(entry, (write) => write(Buffer.from(data, 'base64')));
      // Lets the chunks that arrived meanwhile be written too.
      if (++written % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await fetching;
  } finally {
    folders.close();
  }
  // Every fetched file now holds its manifest content: its hash is known without reading it again.
  const after = await scanTree(dir);
  for (const [rel, known] of Object.entries(files)) {
    const entry = after.entries.get(rel);
    if (entry === undefined || entry.kind !== 'file') delete files[rel];
    else files[rel] = { ...known, size: entry.size, mtimeMs: entry.mtimeMs, ino: entry.ino };
  }
  await writeState(context.metaDir, { version: manifest.version, files });
  return { fetched, bytes, refused };
}
