// Fetching a git repository on the bot: one shallow clone of one branch or tag (isomorphic-git, no process),
// then the commit's tree written out as plain files by us (never a checkout: symlinks and submodules are
// recorded as findings, not created). Bounded in bytes, files and time; nothing fetched runs.
import * as fs from 'node:fs';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { type InstallBounds, OverBound, packBounds } from './bounds.ts';
import { boundedHttp } from './boundedHttp.ts';
import { type FetchGuard, PrivateAddress } from './sourceAddress.ts';
import type { InstallSource } from './source.ts';
import { type Staged, StagingWriter, removeStaged } from './staging.ts';

export type FetchResult = { ok: true; staged: Staged } | { ok: false; error: string };

type GitSource = Extract<InstallSource, { kind: 'git' }>;

/** The commit a ref names on the server now, without fetching it (an update's first look, a moved-ref check). */
export async function remoteCommit(source: GitSource, bounds: InstallBounds, guard: FetchGuard): Promise<string | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), bounds.timeoutMs);
  try {
    const refs = await git.listServerRefs({ http: boundedHttp(bounds.maxDownloadBytes, controller.signal, guard), url: source.url, symrefs: true, peelTags: true });
    const wanted = source.ref === undefined ? ['HEAD'] : [`refs/heads/${source.ref}`, `refs/tags/${source.ref}`];
    for (const name of wanted) {
      const ref = refs.find((entry) => entry.ref === name);
      if (ref) return ref.peeled ?? ref.oid;
    }
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

export async function fetchGit(source: GitSource, parent: string, bounds: InstallBounds, guard: FetchGuard): Promise<FetchResult> {
  const writer = await StagingWriter.create(parent, bounds);
  const gitdir = join(`${writer.dir}.git`);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), bounds.timeoutMs);
  const http = boundedHttp(bounds.maxDownloadBytes, controller.signal, guard, packBounds(bounds));
  try {
    await git.clone({
      fs,
      http,
      dir: writer.dir,
      gitdir,
      url: source.url,
      ...(source.ref === undefined ? {} : { ref: source.ref }),
      depth: 1,
      singleBranch: true,
      noCheckout: true,
      noTags: true,
    });
    const commit = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
    const top = await git.readTree({ fs, gitdir, oid: commit, ...(source.path === undefined ? {} : { filepath: source.path }) }).catch(() => undefined);
    if (top === undefined) throw new NotThere(`${source.path ?? '/'} is not a folder at ${commit.slice(0, 12)}`);
    await writeTree(writer, gitdir, top.tree, '', controller.signal);
    return { ok: true, staged: writer.finish({ kind: 'git', url: source.url, ...(source.ref === undefined ? {} : { ref: source.ref }), commit }) };
  } catch (error) {
    await removeStaged(writer.dir);
    return { ok: false, error: describeFetchError(error, controller.signal.aborted, bounds) };
  } finally {
    clearTimeout(timer);
    await removeStaged(gitdir);
  }
}

class NotThere extends Error {}

type Entries = Awaited<ReturnType<typeof git.readTree>>['tree'];

async function writeTree(writer: StagingWriter, gitdir: string, entries: Entries, prefix: string, signal: AbortSignal): Promise<void> {
  for (const entry of entries) {
    if (signal.aborted) throw new OverBound('the fetch took too long');
    const path = `${prefix}${entry.path}`;
    if (entry.type === 'tree') {
      const sub = await git.readTree({ fs, gitdir, oid: entry.oid });
      await writeTree(writer, gitdir, sub.tree, `${path}/`, signal);
    } else if (entry.type === 'commit') {
      writer.skip({ path, kind: 'submodule', detail: entry.oid });
    } else if (entry.mode === '120000') {
      const { blob } = await git.readBlob({ fs, gitdir, oid: entry.oid });
      writer.skip({ path, kind: 'symlink', detail: Buffer.from(blob).toString('utf8').slice(0, 300) });
    } else {
      const { blob } = await git.readBlob({ fs, gitdir, oid: entry.oid });
      await writer.write(path, blob, entry.mode === '100755');
    }
  }
}

function describeFetchError(error: unknown, timedOut: boolean, bounds: InstallBounds): string {
  if (error instanceof OverBound || error instanceof NotThere || error instanceof PrivateAddress) return error.message;
  const wrapped = (error as { cause?: unknown }).cause;
  if (wrapped instanceof PrivateAddress) return wrapped.message;
  if (timedOut) return `fetching took longer than ${Math.round(bounds.timeoutMs / 1000)} s`;
  const err = error as { code?: string; message?: string; data?: { statusCode?: number } };
  if (err.code === 'HttpError') return `the server answered ${err.data?.statusCode ?? 'an error'}: is the address right, and the repository public?`;
  if (err.code === 'NotFoundError') return 'that branch or tag does not exist there';
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  if (cause !== undefined) return `the server could not be reached (${cause})`;
  // isomorphic-git's messages quote what the server sent: never repeated to the person (it may be anything).
  return `the server's answer is not a git repository the bot can read (${typeof err.code === 'string' ? err.code : 'unreadable'})`;
}
