#!/usr/bin/env node
// Launcher: runs the TypeScript sources directly (tsx), so `npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../adapters/main.ts');
process.exitCode = await main(process.argv.slice(2));
