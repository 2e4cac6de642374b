// The store's record of a chat's workspace: the manifest (sealed with the state key, its paths checked before
// anything is written), the chunk blobs it names (per chat, content-addressed, so a push sends only new ones and
// removes the ones no manifest names any more), and this instance's own note of what it last pushed or restored.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Store } from '../store/types.ts';
import { isPlainName } from './folderFd.ts';
import type { ManifestSeal } from './manifestSeal.ts';
import { readInside, writeInside } from './safeFiles.ts';

/** Files are stored and fetched in chunks of this size: never held whole in memory, whatever their size. */
export const CHUNK_BYTES = 1024 * 1024;
/** Files up to this size ride inline in the manifest, up to INLINE_TOTAL bytes in all (unpacked documents are many small parts). */
export const INLINE_FILE = 64 * 1024;
export const INLINE_TOTAL = 4 * 1024 * 1024;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** A relative path of plain names: no `..`, `.`, empty part, absolute path or NUL. */
export function isSafeRel(rel: string): boolean {
  return rel.split('/').every(isPlainName);
}
const relPath = z.string().max(16_384).refine(isSafeRel, 'a path inside the workspace (no "..", no absolute path, no NUL)');

export const manifestSchema = z.object({
  version: z.number().int().nonnegative(),
  /** When every blob's expiry was last pushed forward (ms). */
  blobsAt: z.number(),
  entries: z.array(
    z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('dir'), path: relPath }),
      z.object({
        kind: z.literal('file'),
        path: relPath,
        size: z.number().int().nonnegative(),
        sha: sha256,
        /** A small file's content (base64), carried in the manifest instead of blobs of its own. */
        data: z.string().optional(),
        /** A larger file's chunks, in order (each CHUNK_BYTES but the last). */
        chunks: z.array(sha256).optional(),
      }),
      z.object({ kind: z.literal('link'), path: relPath, target: z.string().max(4096).refine((text) => !text.includes('\0')) }),
    ]),
  ),
});
export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestEntry = Manifest['entries'][number];
export type FileEntry = Extract<ManifestEntry, { kind: 'file' }>;

const sealedSchema = z.object({ body: z.string(), mac: z.string() });

/** What this instance last pushed or restored, kept beside the folder: its version and each file's hashes by identity. */
const localStateSchema = z.object({
  version: z.number().int().nonnegative(),
  files: z.record(z.string(), z.object({ size: z.number(), mtimeMs: z.number(), ino: z.number(), sha: z.string(), chunks: z.array(z.string()).optional() })),
});
export type LocalState = z.infer<typeof localStateSchema>;
export type KnownFile = LocalState['files'][string];

const STATE_FILE = 'sync.json';
const EMPTY_STATE: LocalState = { version: 0, files: {} };

export const manifestKey = (chatId: string) => `workspace/${chatId}`;
/** A chat's chunks are its own: removing what its manifest no longer names never touches another chat's. */
export const blobKey = (chatId: string, sha: string) => `workspace-blob/${createHash('sha256').update(chatId).digest('hex').slice(0, 32)}/${sha}`;

export type StoredManifest = { ok: true; manifest: Manifest } | { ok: false; why: 'absent' | 'unsealed' | 'invalid'; detail?: string };

/** The chat's manifest from the store, only when its seal holds and every path in it is a path inside the workspace. */
export async function readManifest(store: Store, seal: ManifestSeal, chatId: string): Promise<StoredManifest> {
  const raw = await store.get<unknown>('workspaces', manifestKey(chatId));
  if (raw === undefined) return { ok: false, why: 'absent' };
  const sealed = sealedSchema.safeParse(raw);
  if (!sealed.success || !seal.verify(chatId, sealed.data.body, sealed.data.mac)) return { ok: false, why: 'unsealed' };
  let body: unknown;
  try {
    body = JSON.parse(sealed.data.body);
  } catch {
    return { ok: false, why: 'invalid', detail: 'not JSON' };
  }
  const parsed = manifestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, why: 'invalid', detail: parsed.error.issues[0]?.message };
  const seen = new Set<string>();
  for (const entry of parsed.data.entries) {
    if (seen.has(entry.path)) return { ok: false, why: 'invalid', detail: `${entry.path} is listed twice` };
    seen.add(entry.path);
  }
  return { ok: true, manifest: parsed.data };
}

export async function writeManifest(store: Store, seal: ManifestSeal, chatId: string, manifest: Manifest, ttlMs: number): Promise<void> {
  const body = JSON.stringify(manifest);
  await store.set('workspaces', manifestKey(chatId), { body, mac: seal.seal(chatId, body) }, ttlMs);
}

/** Every chunk a manifest names. */
export function chunksOf(manifest: Manifest | undefined): Set<string> {
  return new Set(manifest?.entries.flatMap((entry) => (entry.kind === 'file' ? (entry.chunks ?? []) : [])) ?? []);
}

export async function readState(metaDir: string): Promise<LocalState> {
  try {
    const read = await readInside(metaDir, STATE_FILE, STATE_FILE, 64 * 1024 * 1024);
    const parsed = localStateSchema.safeParse(JSON.parse(read.bytes.toString('utf8')));
    return parsed.success ? parsed.data : EMPTY_STATE;
  } catch {
    return EMPTY_STATE;
  }
}

export async function writeState(metaDir: string, state: LocalState): Promise<void> {
  await writeInside(metaDir, STATE_FILE, STATE_FILE, Buffer.from(JSON.stringify(state)), undefined, 0o600);
}
