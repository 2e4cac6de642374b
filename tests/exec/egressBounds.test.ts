// The egress proxy can never take the bot down (issue 27, F2, F7, F8): it runs in a process of its own; an upstream
// answering `HTTP/1.1 000` is a 502; a run's idle connections are capped and cost the bot no file descriptor; names
// whose DNS never answers are bounded per run, dropped when the run ends, and never hold the bot's own lookups.
import { lookup } from 'node:dns/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import type { Executor } from '../../src/exec/types.ts';
import { type FakeDns, startFakeDns } from '../fakes/dnsServer.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';
import { openTestNetns, type TestNetns } from './testNetns.ts';

// Opens N connections to the proxy and holds them, then asks one more CONNECT; prints how each fared.
const HOLD = `#!/usr/bin/env python3
import os, socket, sys, time
port = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
held, refused = [], 0
for _ in range(int(sys.argv[1])):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    held.append(s)
time.sleep(1)
for s in held:
    s.settimeout(0.05)
    try:
        if s.recv(1) == b"": refused += 1
    except socket.timeout:
        pass
    except OSError:
        refused += 1
print("held %d, closed by the proxy %d" % (len(held) - refused, refused))
sys.stdout.flush()
time.sleep(float(sys.argv[2]))
`;

// Asks CONNECT for N distinct names at once, each on its own connection, and prints the status lines seen.
const NAMES = `#!/usr/bin/env python3
import os, socket, sys, threading, time
port = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
lines = {}
def ask(i):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(("CONNECT n%d.hang.test:443 HTTP/1.1\\r\\n\\r\\n" % i).encode())
        lines[i] = s.recv(200).decode(errors="replace").split("\\r\\n")[0]
    except OSError as e:
        lines[i] = "error %s" % e
threads = [threading.Thread(target=ask, args=(i,), daemon=True) for i in range(int(sys.argv[1]))]
for t in threads: t.start()
deadline = time.time() + float(sys.argv[2])
for t in threads: t.join(max(0, deadline - time.time()))
print(sum(1 for line in lines.values() if line.startswith("HTTP/1.1 403")))
`;

let netns: TestNetns;
let dns: FakeDns;
let skill: TempSkill;
let executor: Executor;
const fds = () => readdirSync('/proc/self/fd').length;

/** The egress process this test's executor started (a child of this process running egressProcess.mjs). */
function egressProcessPid(): number | undefined {
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('egressProcess.mjs')) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

beforeAll(async () => {
  netns = await openTestNetns();
  dns = await startFakeDns({}, { silent: (name) => name.endsWith('.hang.test') });
  skill = await makeSkill();
  await skill.write('scripts/zero.sh', `#!/bin/sh\ncurl -sS --max-time 10 -o /dev/null -w '%{http_code}\\n' http://${netns.address}:${netns.zeroStatusPort}/\n`);
  await skill.write('scripts/hold.py', HOLD);
  await skill.write('scripts/names.py', NAMES);
  executor = createExecutor({
    timeoutMs: 60_000,
    egressAllow: [netns.subnet],
    egressDnsServers: [dns.server],
    egressBounds: { maxConnections: 32, maxLookups: 20, lookupTimeoutMs: 20_000 },
  });
});
afterAll(async () => {
  executor?.close();
  await skill?.remove();
  await dns?.close();
  await netns?.close();
});

describe('the egress proxy', () => {
  it('answers 502 for an upstream status line of 000, and the next run goes on (F2)', async () => {
    const first = await executor.run({ skillDir: skill.dir, script: 'scripts/zero.sh', network: true });
    expect(first).toMatchObject({ status: 'ok', stdout: '502\n' });
    const again = await executor.run({ skillDir: skill.dir, script: 'scripts/zero.sh', network: true });
    expect(again).toMatchObject({ status: 'ok', stdout: '502\n' });
  });

  it("caps a run's connections, and idle ones cost the bot's process no file descriptor (F7)", async () => {
    const before = fds();
    let during = 0;
    const running = executor.run({ skillDir: skill.dir, script: 'scripts/hold.py', args: ['300', '2'], network: true });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    during = fds();
    const result = await running;
    expect(result.status).toBe('ok');
    // The proxy served its 32 and closed the rest at once.
    expect(result.stdout).toBe('held 32, closed by the proxy 268\n');
    expect(during - before).toBeLessThan(10);
  });

  it("bounds a run's lookups, drops them when it ends, and the bot's own lookups stay fast (F8)", async () => {
    const running = executor.run({ skillDir: skill.dir, script: 'scripts/names.py', args: ['30', '3'], network: true, timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const started = Date.now();
    await lookup('localhost');
    expect(Date.now() - started).toBeLessThan(500);
    const result = await running;
    // Past the 20th name, the proxy refuses at once; the 20 waiting for their DNS are cut when the run ends.
    expect(result.stdout).toBe('10\n');
    const asked = [...dns.asked.keys()].filter((name) => name.endsWith('.hang.test'));
    expect(asked.length).toBeLessThanOrEqual(20);
    const total = [...dns.asked.values()].reduce((sum, count) => sum + count, 0);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    // Nothing is asked for the run after its end: its pending lookups were dropped (c-ares would retry them).
    expect([...dns.asked.values()].reduce((sum, count) => sum + count, 0)).toBe(total);
  }, 30_000);

  it('is started again when its process ends, and the next networked run goes on', async () => {
    const pid = egressProcessPid();
    expect(pid).toEqual(expect.any(Number));
    process.kill(pid!, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await executor.run({ skillDir: skill.dir, script: 'scripts/zero.sh', network: true });
    expect(after).toMatchObject({ status: 'ok', stdout: '502\n' });
    expect(egressProcessPid()).not.toBe(pid);
  });
});
