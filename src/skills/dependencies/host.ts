// What the sandbox's view of this host offers, found by looking at files (stat, readdir), never by starting a
// process: programs on the sandbox's PATH, the Python modules the sandbox's `python3` can import, Node packages.
import { readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { PROGRAM_ALIASES, SANDBOX_PATH } from '../../config/sandboxPaths.ts';
import type { Dependency } from './types.ts';

/** Host folders the sandbox shows (read-only); a program elsewhere, even if the host has it, is not there. */
const SANDBOX_VISIBLE = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/'];

export interface HostOptions {
  /** The PATH a skill process gets (default: the sandbox's). */
  searchPath?: string;
  /** The bot's own node, whose PREFIX/lib/node it searches for packages (default: this process's). */
  nodePath?: string;
}

/** Answers "does the host have X", caching each folder it reads. One per check run; no global state. */
export class HostView {
  readonly #searchPath: string[];
  readonly #nodeDir: string;
  readonly #listings = new Map<string, ReadonlySet<string>>();
  #python: PythonSite | null | undefined;

  constructor(options: HostOptions = {}) {
    this.#searchPath = (options.searchPath ?? SANDBOX_PATH).split(':').filter((dir) => dir !== '');
    this.#nodeDir = path.dirname(realpathOr(options.nodePath ?? process.execPath));
  }

  has(dependency: Pick<Dependency, 'kind' | 'name'>, skillDir?: string): boolean {
    if (dependency.kind === 'program') return this.hasProgram(dependency.name);
    if (dependency.kind === 'python') return this.hasPythonModule(dependency.name);
    return this.hasNodePackage(dependency.name, skillDir);
  }

  /** A plain name is looked up on the sandbox PATH; an absolute path must exist where the sandbox shows it. */
  hasProgram(name: string): boolean {
    if (name.startsWith('/')) return SANDBOX_VISIBLE.some((prefix) => name.startsWith(prefix)) && isExecutable(statOr(name));
    // The bot's own node (mounted, and running `.js` scripts that have no shebang) is not on this PATH: a
    // `#!/usr/bin/env node` or a `node x.js` in shell code needs a node here, so it is not counted.
    if (this.#searchPath.some((dir) => isExecutable(statOr(path.join(dir, name))))) return true;
    // The sandbox links an alias (`python`) to its target when the host has only the target.
    const target = PROGRAM_ALIASES[name];
    return target !== undefined && this.hasProgram(target);
  }

  /** Where the sandbox's `python3` looks: its stdlib, lib-dynload and site folders (Debian's dist-packages). */
  hasPythonModule(name: string): boolean {
    const site = this.pythonSite();
    if (site === null) return false;
    return site.dirs.some((dir) => {
      const entries = this.#list(dir);
      if (entries.has(name) || entries.has(`${name}.py`) || entries.has(`${name}.pyc`) || entries.has(`${name}.so`)) return true;
      for (const entry of entries) if (entry.startsWith(`${name}.`) && entry.endsWith('.so')) return true;
      return false;
    });
  }

  /** Whether the host's package `name` has the submodule `sub` (`v3` of imageio): a `sub.py`, `sub/` or `sub*.so` in it. */
  hasPythonSubmodule(name: string, sub: string): boolean {
    const site = this.pythonSite();
    if (site === null) return false;
    const parts = sub.split('.');
    const last = parts.pop() ?? '';
    return site.dirs.some((dir) => {
      const folder = path.join(dir, name, ...parts);
      if (statOr(folder)?.isDirectory() !== true) return false;
      const entries = this.#list(folder);
      return entries.has(last) || entries.has(`${last}.py`) || [...entries].some((entry) => entry.startsWith(`${last}.`) && entry.endsWith('.so'));
    });
  }

  /** The sandbox's python3 (the first on its PATH) and the folders it imports from; null when there is none. */
  pythonSite(): PythonSite | null {
    if (this.#python !== undefined) return this.#python;
    this.#python = null;
    for (const dir of this.#searchPath) {
      const candidate = path.join(dir, 'python3');
      if (!isExecutable(statOr(candidate))) continue;
      const real = realpathOr(candidate);
      const version = /python(3\.\d+)/.exec(path.basename(real))?.[1] ?? this.#newestPython(path.dirname(path.dirname(real)));
      if (version === undefined) break;
      this.#python = { interpreter: candidate, version, dirs: sitePaths(path.dirname(path.dirname(real)), version) };
      break;
    }
    return this.#python;
  }

  /** Node resolves from the script's folder up (a bundled node_modules), then the global folders. */
  hasNodePackage(name: string, skillDir?: string): boolean {
    const dirs: string[] = [];
    if (skillDir !== undefined) {
      for (let dir = skillDir; ; dir = path.dirname(dir)) {
        dirs.push(path.join(dir, 'node_modules'));
        if (path.dirname(dir) === dir) break;
      }
    }
    const prefix = path.dirname(this.#nodeDir);
    dirs.push(path.join(prefix, 'lib', 'node'), path.join(prefix, 'lib', 'node_modules'), '/usr/lib/node_modules', '/usr/local/lib/node_modules');
    dirs.push('/usr/share/nodejs', '/usr/lib/nodejs', ...this.#triplets().map((triplet) => `/usr/lib/${triplet}/nodejs`));
    return dirs.some((dir) => statOr(path.join(dir, name, 'package.json')) !== undefined || statOr(path.join(dir, `${name}.js`)) !== undefined);
  }

  #list(dir: string): ReadonlySet<string> {
    let entries = this.#listings.get(dir);
    if (entries === undefined) {
      try {
        entries = new Set(readdirSync(dir));
      } catch {
        entries = new Set();
      }
      this.#listings.set(dir, entries);
    }
    return entries;
  }

  #newestPython(prefix: string): string | undefined {
    const versions = [...this.#list(path.join(prefix, 'lib'))].map((entry) => /^python(3\.\d+)$/.exec(entry)?.[1]).filter((v) => v !== undefined);
    return versions.sort((a, b) => Number(b.split('.')[1]) - Number(a.split('.')[1]))[0];
  }

  #triplets(): string[] {
    return [...this.#list('/usr/lib')].filter((entry) => /-linux-gnu/.test(entry));
  }
}

export interface PythonSite {
  interpreter: string;
  version: string;
  dirs: string[];
}

/**
 * The folders `python3` imports from, as its build lays them out: its stdlib under PREFIX/lib/pythonX.Y, and for
 * Debian's /usr build also /usr/local/lib/pythonX.Y/dist-packages and /usr/lib/python3/dist-packages, where
 * `apt-get install python3-…` and `pip install` (as root) put packages. No .pth files or eggs are read.
 */
function sitePaths(prefix: string, version: string): string[] {
  const lib = path.join(prefix, 'lib', `python${version}`);
  const dirs = [lib, path.join(lib, 'lib-dynload'), path.join(lib, 'site-packages')];
  if (prefix === '/usr') {
    dirs.push(`/usr/local/lib/python${version}/dist-packages`, '/usr/lib/python3/dist-packages', `/usr/lib/python${version}/dist-packages`);
  }
  return dirs;
}

function statOr(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function isExecutable(info: Stats | undefined): boolean {
  return info !== undefined && info.isFile() && (info.mode & 0o111) !== 0;
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
