// A git server on loopback: `git http-backend` (smart HTTP, the protocol GitHub speaks) behind node:http, serving
// repositories made by the test with the git command. `/owner/repo.git` is the repository at ROOT/owner/repo.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type RepoFile = string | { text: string | Buffer; executable?: boolean } | { symlink: string };

export interface FakeGitServer {
  /** `http://127.0.0.1:PORT`: what INSTALL_GITHUB_URL is set to. */
  url: string;
  root: string;
  /** Requests served so far (for tests that check nothing was fetched). */
  requests: () => number;
  /** Makes (or replaces the files of) owner/repo and commits them on `branch`; returns the commit. */
  commit(repo: string, files: Record<string, RepoFile>, options?: { branch?: string; message?: string; replace?: boolean }): string;
  /** Tags the branch's head (or `at`), moving the tag when it exists; `annotated`: a tag object with a message, as releases are. */
  tag(repo: string, tag: string, options?: { annotated?: boolean; at?: string }): void;
  close(): Promise<void>;
}

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir() };

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
}

export async function startFakeGitServer(): Promise<FakeGitServer> {
  const root = mkdtempSync(join(tmpdir(), 'skillbot-git-'));
  let served = 0;
  const server: Server = createServer((req, res) => {
    served += 1;
    const url = new URL(req.url ?? '/', 'http://x');
    const match = /^\/([^/]+)\/([^/]+?)(?:\.git)?(\/.*)$/.exec(url.pathname);
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const [, owner, repo, rest] = match;
    const child = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: `/${owner}/${repo}/.git${rest}`,
        REQUEST_METHOD: req.method ?? 'GET',
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('utf8').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    child.on('close', () => res.end());
    child.on('error', () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    root,
    requests: () => served,
    commit(repo, files, options = {}) {
      const dir = join(root, repo);
      const branch = options.branch ?? 'main';
      mkdirSync(dir, { recursive: true });
      if (!existsSync(join(dir, '.git'))) {
        git(dir, 'init', '-q', '-b', branch);
        // As GitHub does: a commit may be fetched by its id (`git fetch origin <sha>`), not only a ref's tip.
        git(dir, 'config', 'uploadpack.allowReachableSHA1InWant', 'true');
      }
      const branches = git(dir, 'branch', '--list', branch);
      if (git(dir, 'symbolic-ref', '--short', 'HEAD') !== branch) git(dir, 'checkout', '-q', ...(branches === '' ? ['-b', branch] : [branch]));
      if (options.replace === true) for (const name of git(dir, 'ls-files').split('\n').filter(Boolean)) rmSync(join(dir, name), { force: true });
      for (const [path, file] of Object.entries(files)) {
        const full = join(dir, path);
        mkdirSync(dirname(full), { recursive: true });
        rmSync(full, { force: true });
        if (typeof file === 'object' && 'symlink' in file) symlinkSync(file.symlink, full);
        else {
          writeFileSync(full, typeof file === 'string' ? file : file.text);
          if (typeof file === 'object' && file.executable) chmodSync(full, 0o755);
        }
      }
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '--allow-empty', '-m', options.message ?? 'change');
      return git(dir, 'rev-parse', 'HEAD');
    },
    tag(repo, tag, options = {}) {
      git(join(root, repo), 'tag', '-f', ...(options.annotated === true ? ['-a', '-m', `release ${tag}`] : []), tag, ...(options.at === undefined ? [] : [options.at]));
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
