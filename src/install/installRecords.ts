// What the shared store keeps of installed skills: one index (every installed skill: source, pin, content
// hash, who installed it where) changed only by compare-and-set on its revision, and one bundle per content
// hash holding the skill's exact bytes. Any instance rebuilds every installed skill from these alone: no shared
// disk. zod checks both on the way in: a row the bot did not write in this shape is ignored, never loaded. The
// index carries a MAC under the state key (indexSeal.ts): one without a valid MAC is ignored too, and reported;
// a bundle needs none, since it is read by the content hash a sealed index names and checked against it.
import { z } from 'zod';
import type { Store } from '../store/types.ts';
import type { IndexSeal } from './indexSeal.ts';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const installedSkillSchema = z.object({
  id: z.string().min(1).max(64),
  /** A world id, or `defaults` (every world: installed by an operator admin). */
  scope: z.string().min(1),
  /** As people wrote it (`github:acme/tools/skills/x@main`, a file name). */
  source: z.string(),
  /** The git URL, ref and path, or the shared file's name: what `update` fetches again. */
  origin: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('git'), url: z.string(), ref: z.string().optional(), path: z.string().optional(), commit: z.string().regex(/^[0-9a-f]{40,64}$/) }),
    z.object({ kind: z.literal('file'), name: z.string(), sha256 }),
  ]),
  /** The skill's folder inside the source (`''`: its top). */
  folder: z.string(),
  /** The registry's content hash of the folder: what the bundle hashes to, and what script approvals bind to. */
  contentHash: sha256,
  files: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  requestedBy: z.string(),
  approvedBy: z.string(),
  installedAt: z.number(),
});
export type InstalledSkill = z.infer<typeof installedSkillSchema>;

const indexSchema = z.object({ status: z.string(), skills: z.array(installedSkillSchema), mac: z.string().optional() });
export interface InstallIndex {
  status: string;
  skills: InstalledSkill[];
  /** Why the stored index was ignored (not written by the bot: no valid MAC, or not its shape); skills is then []. */
  ignored?: string;
}

const bundleSchema = z.object({
  hash: sha256,
  files: z.array(z.object({ path: z.string(), executable: z.boolean(), data: z.string() })),
});
export type Bundle = z.infer<typeof bundleSchema>;

const INDEX_KEY = 'index';
const bundleKey = (hash: string) => `bundle/${hash}`;
/** Long enough to be forever for a bot; claim() needs a TTL. */
const FOREVER_MS = 100 * 365 * 24 * 60 * 60 * 1000;
/** Channel on which a change of the index is announced (a hint: instances also re-read it on a timer). */
export const INSTALLS_CHANNEL = 'installs';

/** The index as the bot wrote it; one it did not write reads as empty, with why in `ignored` (never trusted). */
export async function readIndex(store: Store, seal: IndexSeal): Promise<InstallIndex> {
  const raw = await store.get<unknown>('installs', INDEX_KEY);
  if (raw === undefined) return { status: '0', skills: [] };
  const status = typeof (raw as { status?: unknown }).status === 'string' ? (raw as { status: string }).status : '';
  const parsed = indexSchema.safeParse(raw);
  if (!parsed.success) return { status, skills: [], ignored: `it is not in the shape the bot writes (${parsed.error.issues[0]?.message ?? 'invalid'})` };
  const { mac, ...index } = parsed.data;
  if (!seal.verify(index.status, index.skills, mac)) return { status, skills: [], ignored: `revision ${status} has no valid MAC under the state key (not written by the bot)` };
  return index;
}

/**
 * Applies `change` to the index atomically across instances (retried when another instance changed it
 * first). Returns the new index, or the error `change` returned (then nothing changed). An index the bot did not
 * write is changed as if empty: nothing of it is carried into the sealed one.
 */
export async function changeIndex(store: Store, seal: IndexSeal, change: (skills: InstalledSkill[]) => InstalledSkill[] | { error: string }): Promise<InstallIndex | { error: string }> {
  const empty = { status: '0', skills: [] };
  await store.claim('installs', INDEX_KEY, { ...empty, mac: seal.seal(empty.status, empty.skills) }, FOREVER_MS);
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const current = await readIndex(store, seal);
    if (current.status === '') {
      // A forged row with no revision to compare against: removed, so the claim above can start a sealed one.
      await store.delete('installs', INDEX_KEY);
      await store.claim('installs', INDEX_KEY, { ...empty, mac: seal.seal(empty.status, empty.skills) }, FOREVER_MS);
      continue;
    }
    const next = change(current.skills.map((skill) => ({ ...skill })));
    if ('error' in next) return next;
    const revision = String((Number(current.status) || 0) + 1);
    const updated = { status: revision, skills: next, mac: seal.seal(revision, next) };
    if (await store.compareAndSet('installs', INDEX_KEY, current.status, updated)) {
      await store.publish(INSTALLS_CHANNEL, updated.status).catch(() => undefined);
      return { status: revision, skills: next };
    }
  }
  return { error: 'the installed-skills index kept changing under this change; try again' };
}

export async function writeBundle(store: Store, bundle: Bundle): Promise<void> {
  await store.set('installs', bundleKey(bundle.hash), bundle);
}

export async function readBundle(store: Store, hash: string): Promise<Bundle | undefined> {
  const raw = await store.get<unknown>('installs', bundleKey(hash));
  const parsed = bundleSchema.safeParse(raw);
  return parsed.success && parsed.data.hash === hash ? parsed.data : undefined;
}

/** Bundles no installed skill uses any more. */
export async function dropBundle(store: Store, hash: string): Promise<void> {
  await store.delete('installs', bundleKey(hash));
}
