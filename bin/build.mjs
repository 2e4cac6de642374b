#!/usr/bin/env node
// Bundles the TypeScript sources into dist/ (run by `npm ci`/`npm install` through `prepare`), so the CLI starts
// without compiling anything. bin/skillbot.mjs uses dist/ only while it is newer than every source file; edit a
// source and the next start runs the sources through tsx again, so a stale build never runs.
import { build } from 'esbuild';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist');

await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The scan worker and the egress proxy process are loaded by URL beside the code that starts them: entries of their own, same folder.
  entryPoints: { main: 'adapters/main.ts', scanWorker: 'src/skills/scanWorker.mjs', egressProcess: 'src/exec/egressProcess.mjs' },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true, // keeps the CLI's lazy imports lazy
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
// Written last: its time is the build's, which the launcher compares with the sources'.
await writeFile(join(outdir, 'BUILT'), `${new Date().toISOString()}\n`);
