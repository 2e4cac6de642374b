// What a person may name as a skill source, read into one shape: a git repository (GitHub shorthand or any
// http(s) git URL) with an optional ref and sub-path, or a `.skill`/`.zip` file shared in the thread.
// The text is data from a chat: anything that is not exactly one of these forms is refused with what was wrong.

export type InstallSource =
  | {
      kind: 'git';
      /** The clone URL. */
      url: string;
      /** A branch, a tag (lightweight or annotated) or a full commit id; absent: the repository's default branch. */
      ref?: string;
      /** A folder inside the repository (relative, `/`-separated, no `..`); absent: the whole repository. */
      path?: string;
      /** How people wrote it (or its canonical form), for cards and the record. */
      display: string;
    }
  | { kind: 'file'; name: string; display: string };

export type ParsedSource = { ok: true; source: InstallSource } | { ok: false; error: string };

const SEGMENT = /^[A-Za-z0-9._-]+$/;
/** git's own ref-name rules, the parts that matter here: no `..`, no control or special characters, no leading `-`. */
const REF = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._/+-]{1,200}(?<![./])$/;

function checkPath(path: string | undefined): string | undefined | { error: string } {
  if (path === undefined || path === '' || path === '/') return undefined;
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  const parts = trimmed.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..' || !SEGMENT.test(part))) {
    return { error: `the path "${path}" must be folder names joined by "/" (letters, digits, ".", "_", "-"; no "..")` };
  }
  return trimmed;
}

function checkRef(ref: string | undefined): string | undefined | { error: string } {
  if (ref === undefined || ref === '') return undefined;
  return REF.test(ref) ? ref : { error: `the ref "${ref}" is not a branch, tag or commit id` };
}

function gitSource(url: string, ref: string | undefined, path: string | undefined, display: string): ParsedSource {
  const checkedRef = checkRef(ref);
  if (typeof checkedRef === 'object') return { ok: false, error: checkedRef.error };
  const checkedPath = checkPath(path);
  if (typeof checkedPath === 'object') return { ok: false, error: checkedPath.error };
  return {
    ok: true,
    source: {
      kind: 'git',
      url,
      ...(checkedRef === undefined ? {} : { ref: checkedRef }),
      ...(checkedPath === undefined ? {} : { path: checkedPath }),
      display,
    },
  };
}

const USAGE = 'use github:owner/repo[/path][@ref], https://host/repo[.git][#ref][:path], or share a .skill or .zip file';

/**
 * Reads SOURCE as people write it. `githubBase` (INSTALL_GITHUB_URL) is what `github:` resolves against.
 * A shared file is named `file:NAME` by the adapters (the bytes travel apart).
 */
export function parseSource(text: string, githubBase: string): ParsedSource {
  const raw = text.trim().replace(/^<|>$/g, '');
  if (raw === '') return { ok: false, error: `no source given: ${USAGE}` };
  if (/\s/.test(raw)) return { ok: false, error: `a source is one word (got "${raw}"): ${USAGE}` };
  if (raw.startsWith('file:')) {
    const name = raw.slice('file:'.length);
    if (!/\.(skill|zip)$/i.test(name)) return { ok: false, error: `"${name}" is not a .skill or .zip file` };
    return { ok: true, source: { kind: 'file', name, display: name } };
  }
  const github = /^github:([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(\/[^@]*)?(?:@(.+))?$/.exec(raw);
  if (github) {
    const [, owner = '', repo = '', path, ref] = github;
    if (!SEGMENT.test(owner) || !SEGMENT.test(repo) || owner.startsWith('.') || repo.startsWith('.')) {
      return { ok: false, error: `"${raw}" does not name a repository: ${USAGE}` };
    }
    const base = githubBase.replace(/\/+$/, '');
    const shown = `github:${owner}/${repo}${path ?? ''}${ref ? `@${ref}` : ''}`;
    return gitSource(`${base}/${owner}/${repo.replace(/\.git$/, '')}.git`, ref, path, shown);
  }
  if (/^https?:\/\//i.test(raw)) {
    // https://host/owner/repo[.git][#ref][:path]: the ref after '#', the path after the last ':' that follows the host.
    const hash = raw.indexOf('#');
    let rest = hash === -1 ? raw : raw.slice(0, hash);
    let fragment = hash === -1 ? undefined : raw.slice(hash + 1);
    let path: string | undefined;
    const afterHost = rest.indexOf('/', rest.indexOf('//') + 2);
    const colon = afterHost === -1 ? -1 : rest.indexOf(':', afterHost);
    if (colon !== -1) {
      path = rest.slice(colon + 1);
      rest = rest.slice(0, colon);
    }
    if (fragment !== undefined && fragment.includes(':')) {
      const split = fragment.indexOf(':');
      path = fragment.slice(split + 1);
      fragment = fragment.slice(0, split);
    }
    let url: URL;
    try {
      url = new URL(rest);
    } catch {
      return { ok: false, error: `"${raw}" is not a URL: ${USAGE}` };
    }
    if (url.username !== '' || url.password !== '') return { ok: false, error: 'a source URL must not carry a user name or password' };
    if (url.search !== '') return { ok: false, error: `"${raw}": a git URL has no query ("?…")` };
    return gitSource(url.toString(), fragment, path, raw);
  }
  return { ok: false, error: `"${raw}" is not a source I can install: ${USAGE}` };
}

/**
 * Whether an operator's `install.sources` lets this source be fetched. A pattern is `github:owner/*`,
 * `github:owner/repo`, a URL prefix ending in `*`, or an exact URL; shared files match `file:*`. No list: any.
 */
export function sourceAllowed(source: InstallSource, patterns: readonly string[] | undefined): boolean {
  if (patterns === undefined) return true;
  const names =
    source.kind === 'file'
      ? [`file:${source.name}`]
      : [source.display.replace(/@.*$/, '').replace(/#.*$/, ''), source.url];
  return patterns.some((pattern) => names.some((name) => matches(pattern, name, source)));
}

function matches(pattern: string, name: string, source: InstallSource): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  if (source.kind === 'git' && pattern.startsWith('github:')) {
    // `github:acme/tools` covers that repository whatever sub-path is asked for.
    return name === pattern || name.startsWith(`${pattern}/`);
  }
  return name === pattern;
}
