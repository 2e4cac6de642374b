// `fs` with a `globSync` for Node 20 (see node20.mjs): `**/<name>` under `cwd`, as relative paths.
import fs from 'node:fs';
import { join, relative } from 'node:path';

export * from 'node:fs';
export default fs;

export function globSync(pattern, { cwd = process.cwd() } = {}) {
  const name = /^\*\*\/([^*/]+)$/.exec(pattern)?.[1];
  if (name === undefined) throw new Error(`fsShim.globSync supports only **/<name>, not ${pattern}`);
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === name) found.push(relative(cwd, path));
    }
  };
  walk(cwd);
  return found;
}
