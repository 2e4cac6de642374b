// Fetching a git repository on the bot: one shallow fetch of one branch, tag or commit (isomorphic-git, no
// process), then the commit's tree written out as plain files by us (never a checkout: symlinks and submodules are
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
type ServerRef = Awaited<ReturnType<typeof git.listServerRefs>>[number];

/** A full commit id: fetched as itself (it never moves), not looked up among the server's refs. */
export const isCommitId = (ref: string | undefined): ref is string => ref !== undefined && /^[0-9a-f]{40}$/.test(ref);

/**
 * Which of the server's refs a source's ref names, read as `git clone --branch` reads it: a branch first, then a
 * tag (lightweight or annotated: `peeled` is then the commit), or the full name; no ref: the default branch.
 */
function pickRef(refs: readonly ServerRef[], ref: string | undefined): ServerRef | undefined {
  const wanted = ref === undefined ? ['HEAD'] : [`refs/heads/${ref}`, `refs/tags/${ref}`, ...(ref.startsWith('refs/') ? [ref] : [])];
  for (const name of wanted) {
    const found = refs.find((entry) => entry.ref === name);
    if (found) return found;
  }
  return undefined;
}

/** What the server holds, for a ref that is not there: a few branch and tag names, so a typo is easy to see. */
function notThere(refs: readonly ServerRef[], ref: string): NotThere {
  const names = (prefix: string) => refs.filter((entry) => entry.ref.startsWith(prefix) && !entry.ref.endsWith('^{}')).map((entry) => entry.ref.slice(prefix.length));
  const some = (list: string[]) => (list.length === 0 ? 'none' : `${list.slice(0, 8).join(', ')}${list.length > 8 ? `, and ${list.length - 8} more` : ''}`);
  const short = /^[0-9a-f]{7,39}$/.test(ref) ? ' (a commit id must be written in full, 40 hex digits)' : '';
  return new NotThere(`no branch or tag named "${ref}" there${short}: its branches are ${some(names('refs/heads/'))}; its tags ${some(names('refs/tags/'))}`);
}

async function serverRefs(source: GitSource, http: ReturnType<typeof boundedHttp>): Promise<ServerRef[]> {
  return git.listServerRefs({ http, url: source.url, symrefs: true, peelTags: true });
}

/** The commit a ref names on the server now, without fetching it (an update's first look, a moved-ref check). */
export async function remoteCommit(source: GitSource, bounds: InstallBounds, guard: FetchGuard): Promise<string | undefined> {
  if (isCommitId(source.ref)) return source.ref;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), bounds.timeoutMs);
  try {
    const found = pickRef(await serverRefs(source, boundedHttp(bounds.maxDownloadBytes, controller.signal, guard)), source.ref);
    return found === undefined ? undefined : (found.peeled ?? found.oid);
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
    // The ref is looked up first (the fetch would take a tag before a branch of the same name, and say less
    // when neither is there); a full commit id is asked for as itself, as GitHub allows.
    let want = source.ref;
    if (!isCommitId(want)) {
      const refs = await serverRefs(source, http);
      const found = pickRef(refs, want);
      if (found === undefined) throw want === undefined ? new NotThere('the repository is empty') : notThere(refs, want);
      want = found.ref;
    }
    await git.init({ fs, dir: writer.dir, gitdir });
    await git.addRemote({ fs, gitdir, remote: 'origin', url: source.url });
    const fetched = await git.fetch({ fs, http, gitdir, url: source.url, ref: want, remoteRef: want, singleBranch: true, depth: 1, tags: false });
    if (fetched.fetchHead === null) throw new NotThere('the repository is empty');
    // An annotated tag names a tag object: the commit is the one it points at.
    const { oid: commit } = await git.readCommit({ fs, gitdir, oid: fetched.fetchHead }).catch(() => {
      throw new NotThere(isCommitId(source.ref) ? `the repository holds no commit ${source.ref}` : `${want} does not name a commit there`);
    });
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
  if (err.code === 'NotFoundError') return 'that branch, tag or commit is not there';
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  if (cause !== undefined) return `the server could not be reached (${cause})`;
  // isomorphic-git's messages quote what the server sent: never repeated to the person (it may be anything).
  return `the server's answer is not a git repository the bot can read (${typeof err.code === 'string' ? err.code : 'unreadable'})`;
}
