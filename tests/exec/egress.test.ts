// Network on, host off (issue 19): a skill allowed the network reaches a server in a namespace the test made (the
// stand-in for the internet) by name, over HTTP and HTTPS, with curl and python; and nothing of the host: no port
// of its loopback or of its other addresses, directly or through the proxy, and no abstract unix socket.
import net from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { type FakeDns, startFakeDns } from '../fakes/dnsServer.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';
import { openTestNetns, type TestNetns } from './testNetns.ts';

const PROBE = `#!/usr/bin/env python3
import json, os, socket, sys
proxy = os.environ.get("HTTPS_PROXY", "http://127.0.0.1:1").rsplit(":", 1)
proxy_port = int(proxy[1])
plan = json.loads(sys.argv[1])
out = {"direct": {}, "connect": {}, "get": {}, "abstract": {}}
for target in plan["direct"]:
    host, port = target.rsplit(":", 1)
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=2).close()
        out["direct"][target] = "connected"
    except OSError as e:
        out["direct"][target] = "failed: %s" % e
def ask(request):
    s = socket.create_connection(("127.0.0.1", proxy_port), timeout=10)
    s.sendall(request.encode())
    line = s.recv(300).decode(errors="replace").split("\\r\\n")[0]
    s.close()
    return line
for target in plan["connect"]:
    out["connect"][target] = ask("CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n" % (target, target))
for url in plan["get"]:
    out["get"][url] = ask("GET %s HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n" % url)
for name in plan["abstract"]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect("\\0" + name)
        out["abstract"][name] = "connected"
    except OSError as e:
        out["abstract"][name] = "failed: %s" % e
print(json.dumps(out))
`;

const FETCH = `#!/bin/sh
set -e
curl -sS --max-time 10 http://files.example.test:8080/plain
curl -sS --max-time 10 --cacert /skills/skill/cert.pem https://files.example.test:8443/tls
python3 -c 'import urllib.request; print(urllib.request.urlopen("http://files.example.test:8080/urllib", timeout=10).read().decode().strip())'
`;

interface Counted {
  server: net.Server;
  connections: number;
}

async function counted(listen: (server: net.Server, ready: () => void) => void): Promise<Counted> {
  const entry: Counted = { server: net.createServer(), connections: 0 };
  entry.server.on('connection', (socket) => {
    entry.connections += 1;
    socket.end('host service\n');
  });
  await new Promise<void>((resolve) => listen(entry.server, resolve));
  return entry;
}

const portOf = (entry: Counted) => (entry.server.address() as net.AddressInfo).port;

describe('a networked skill', () => {
  let netns: TestNetns;
  let dns: FakeDns;
  let skill: TempSkill;
  let loopback: Counted;
  let everywhere: Counted;
  let abstract: Counted;
  const abstractName = `skillbot-test-${process.pid}-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    netns = await openTestNetns();
    dns = await startFakeDns({ 'files.example.test': netns.address });
    skill = await makeSkill();
    await skill.write('scripts/probe.py', PROBE);
    await skill.write('scripts/fetch.sh', FETCH);
    await skill.write('cert.pem', netns.cert, { executable: false });
    loopback = await counted((server, ready) => server.listen(0, '127.0.0.1', ready));
    everywhere = await counted((server, ready) => server.listen(0, '0.0.0.0', ready));
    abstract = await counted((server, ready) => server.listen(`\0${abstractName}`, ready));
  });
  afterAll(async () => {
    for (const entry of [loopback, everywhere, abstract]) if (entry !== undefined) await new Promise((resolve) => entry.server.close(resolve));
    await skill?.remove();
    await dns?.close();
    await netns?.close();
  });

  const executor = () =>
    createExecutor({
      timeoutMs: 30_000,
      egressAllow: [netns.subnet],
      // The test's own DNS server names the namespace's server.
      egressDnsServers: [dns.server],
    });

  it('fetches by name over HTTP and HTTPS (CONNECT) with curl and python from a server outside the host', async () => {
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/fetch.sh', network: true });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      'hello from the test namespace over http /plain\n' +
        'hello from the test namespace over https /tls\n' +
        'hello from the test namespace over http /urllib\n',
    );
    expect(result.status).toBe('ok');
  });

  it("reaches 0 ports of the host's loopback and other addresses, directly or through the proxy, and 0 abstract sockets", async () => {
    const own = Object.values(os.networkInterfaces())
      .flatMap((list) => list ?? [])
      .filter((entry) => entry.family === 'IPv4' && !entry.internal)
      .map((entry) => entry.address);
    expect(own).toContain(netns.hostAddress);
    const lo = portOf(loopback);
    const any = portOf(everywhere);
    const plan = {
      direct: [`127.0.0.1:${lo}`, ...own.map((address) => `${address}:${any}`)],
      connect: [
        `127.0.0.1:${lo}`, `localhost:${lo}`, `[::1]:${lo}`, `[::ffff:127.0.0.1]:${lo}`, `0.0.0.0:${any}`, `127.0.0.2:${lo}`,
        ...own.map((address) => `${address}:${any}`),
      ],
      get: [`http://127.0.0.1:${lo}/`, `http://localhost:${lo}/`, ...own.map((address) => `http://${address}:${any}/`)],
      abstract: [abstractName],
    };
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/probe.py', args: [JSON.stringify(plan)], network: true });
    expect(result.status).toBe('ok');
    const seen = JSON.parse(result.stdout) as Record<'direct' | 'connect' | 'get' | 'abstract', Record<string, string>>;
    for (const outcome of [...Object.values(seen.direct), ...Object.values(seen.abstract)]) expect(outcome).toMatch(/^failed/);
    for (const line of [...Object.values(seen.connect), ...Object.values(seen.get)]) expect(line).toMatch(/^HTTP\/1\.1 403/);
    expect(Object.keys(seen.connect)).toHaveLength(plan.connect.length);
    expect(loopback.connections + everywhere.connections + abstract.connections).toBe(0);
  });

  it('refuses with a reason that names the destination the proxy refused', async () => {
    await skill.write('scripts/redis.sh', '#!/bin/sh\ncurl -sS --max-time 5 --noproxy "" -p http://127.0.0.1:6379/ >/dev/null\n');
    const result = await executor().run({ skillDir: skill.dir, script: 'scripts/redis.sh', network: true });
    expect(result.status).toBe('failed');
    expect(result.reason).toContain("the network proxy refused 127.0.0.1:6379: 127.0.0.1 is the host's loopback");
  });

  it('is refused with the fix, never run on the host network, where the bridge cannot start', async () => {
    // A "node" that is no node: the bridge inside cannot start, so no networked run has a way out.
    const broken = createExecutor({ timeoutMs: 30_000, nodePath: '/usr/bin/false' });
    const status = await broken.sandbox();
    expect(status).toMatchObject({ mode: 'bwrap', usable: true, network: { problem: expect.stringMatching(/network bridge does not start/) } });
    const networked = await broken.run({ skillDir: skill.dir, script: 'scripts/probe.py', args: ['{}'], network: true });
    expect(networked.status).toBe('refused');
    expect(networked.reason).toMatch(/^this skill may use the network, but the sandbox cannot give it a safe way out: .*To fix: make the bot's node runnable/);
    // Runs without network are not affected.
    await skill.write('scripts/plain.sh', '#!/bin/sh\necho plain\n');
    expect(await broken.run({ skillDir: skill.dir, script: 'scripts/plain.sh' })).toMatchObject({ status: 'ok', stdout: 'plain\n' });
  });
});
