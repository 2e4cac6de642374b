#!/usr/bin/env node
// Launcher: runs the bundle in dist/ when it is newer than every source (built by `npm ci` through `prepare`),
// else the TypeScript sources directly through tsx, so `npm start` never needs a build step to be remembered.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newestSource(dir, newest = 0) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = newestSource(path, newest);
    else if (/\.(ts|mjs)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function freshBuild() {
  try {
    const built = statSync(join(root, 'dist', 'BUILT')).mtimeMs;
    const sources = Math.max(newestSource(join(root, 'src')), newestSource(join(root, 'adapters')), statSync(join(root, 'package.json')).mtimeMs);
    return built >= sources;
  } catch {
    return false; // no build (or no sources to compare): run the sources
  }
}

let main;
if (freshBuild()) ({ main } = await import('../dist/main.mjs'));
else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../adapters/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
