// Issue 35, N11 and N14: a tool's full name names one (server, tool) only, and the terminal chat's sign-in
// listener is reachable from this machine only unless HOST says otherwise.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { signInListener } from '../../../src/mcp/signInListener.ts';
import { silentLogger } from '../../../src/ops/log.ts';
import { freePort } from '../../fakes/freePort.ts';
import { startMcpHarness } from '../harness.ts';

async function configWith(yaml: string, env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-r4-names-'));
  const file = join(dir, 'skillbot.yaml');
  await writeFile(file, yaml);
  return () => loadConfig({ SKILLBOT_CONFIG: file, STORE_URL: 'memory://', ...env });
}

describe('N11: server names that would make two tools share a full name', () => {
  it('refuses `gh__x` (whose `read` would be mcp__gh__x__read, as gh\'s tool x__read is) and `gh_`', async () => {
    const twoUnderscores = await configWith('mcpServers:\n  gh: { command: node }\n  gh__x: { command: node }\n');
    expect(twoUnderscores).toThrow('mcpServers: "gh__x" is not a server name: it may not hold "__" or end with "_"');
    const trailing = await configWith('mcpServers:\n  gh_: { command: node }\n');
    expect(trailing).toThrow('mcpServers: "gh_" is not a server name');
    expect((await configWith('mcpServers:\n  gh-x_y: { command: node }\n'))().mcp.servers.map((server) => server.name)).toEqual(['gh-x_y']);
  });
});

const outside = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;

function reaches(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('N14: the terminal chat\'s sign-in listener', () => {
  const yaml = "mcpServers:\n  tracker: { type: http, url: 'https://tracker.example/mcp' }\n";

  it('listens on 127.0.0.1 when HOST is unset, and where HOST says when it is set', async () => {
    expect(outside, 'this test needs an address of the machine other than loopback').toBeDefined();
    for (const [env, fromOutside] of [[{}, false], [{ HOST: '0.0.0.0' }, true]] as const) {
      const port = await freePort();
      const loaded = (await configWith(yaml, { PORT: String(port), ...env }))();
      const bot = await startMcpHarness({ tracker: { type: 'http', url: 'https://tracker.example/mcp' } }, {}, (config) => Object.assign(config, { port, host: loaded.host, hostSet: loaded.hostSet }));
      const http = await signInListener(bot.app.mcp!.signIns, bot.app.config, silentLogger());
      try {
        expect(await reaches('127.0.0.1', port)).toBe(true);
        expect(await reaches(outside!, port)).toBe(fromOutside);
      } finally {
        await http?.close();
        await bot.close();
      }
    }
  });
});
