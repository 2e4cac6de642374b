// `node --import ./tests/conformance/node20.mjs`: lets @modelcontextprotocol/conformance (written for Node 22+)
// load on Node 20, whose `fs` has no `globSync`. Its import of `fs` is pointed at fsShim.mjs, which is `fs` plus
// a `globSync` for the one pattern the suite uses (`**/checks.json`, in its tier report, not in client mode).
// On a Node whose `fs` has `globSync`, nothing is changed.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./fsResolve.mjs', import.meta.url);
