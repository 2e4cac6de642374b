// The MCP conformance suite (@modelcontextprotocol/conformance) in client mode against our client: every client
// scenario it offers, each against its own loopback server, with tests/conformance/driver.ts (src/mcp's client
// code) as the client under test. The results are compared with the committed baseline of expected failures
// (baseline.yml, in the suite's own `--expected-failures` format; each entry explained in docs/mcp.md): a failure
// not in it, or an entry that now passes, fails this test. A scenario fails on any FAILURE or WARNING check.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const SUITE = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
// node20.mjs lets the suite (written for Node 22+) load on Node 20.
const NODE = [process.execPath, '--import', join(import.meta.dirname, 'node20.mjs'), SUITE];
const DRIVER = `${process.execPath} --import tsx ${join(import.meta.dirname, 'driver.ts')}`;
/** Scenarios run two at a time: the machine is shared, and a loaded one times clients out. */
const AT_ONCE = 2;

const results = await mkdtemp(join(tmpdir(), 'skillbot-conformance-'));
afterAll(() => rm(results, { recursive: true, force: true }));

async function clientScenarios(): Promise<string[]> {
  const { stdout } = await run(NODE[0]!, [...NODE.slice(1), 'list', '--client'], { cwd: ROOT });
  return [...stdout.matchAll(/^\s+- (\S+) \[/gm)].map((match) => match[1]!);
}

/** Runs one scenario; its checks' statuses other than SUCCESS and INFO, by check id. */
async function runScenario(scenario: string): Promise<string[]> {
  const out = join(results, scenario.replace(/\//g, '_'));
  // The suite exits non-zero when a scenario fails: the checks say how.
  await run(NODE[0]!, [...NODE.slice(1), 'client', '--command', DRIVER, '--scenario', scenario, '-o', out], { cwd: ROOT, timeout: 120_000 }).catch(() => undefined);
  const folders = await readdir(join(out, ...scenario.split('/').slice(0, -1))).catch(() => []);
  const folder = folders.find((name) => name.startsWith(`${scenario.split('/').at(-1)}-`));
  if (folder === undefined) return ['no-results'];
  const written = await readFile(join(out, ...scenario.split('/').slice(0, -1), folder, 'checks.json'), 'utf8').catch(() => undefined);
  if (written === undefined) return ['no-checks (the suite did not finish the scenario)'];
  const checks = JSON.parse(written) as Array<{ id: string; status: string }>;
  return checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO').map((check) => `${check.id}: ${check.status}`);
}

describe('the MCP conformance suite, client mode, against our client', () => {
  it('fails no scenario outside the baseline, and passes none the baseline expects to fail', async () => {
    const baseline = new Set((parse(await readFile(join(import.meta.dirname, 'baseline.yml'), 'utf8')) as { client: string[] }).client);
    const scenarios = await clientScenarios();
    expect(scenarios.length).toBeGreaterThan(20);
    const failed = new Map<string, string[]>();
    const queue = [...scenarios];
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
          const problems = await runScenario(scenario);
          if (problems.length > 0) failed.set(scenario, problems);
        }
      }),
    );
    const unexpected = [...failed].filter(([scenario]) => !baseline.has(scenario)).map(([scenario, problems]) => `${scenario} (${problems.join(', ')})`);
    const nowPassing = [...baseline].filter((scenario) => scenarios.includes(scenario) && !failed.has(scenario));
    expect({ unexpected, nowPassing }).toEqual({ unexpected: [], nowPassing: [] });
  }, 900_000);
});
