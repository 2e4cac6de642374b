// A sandbox that looks like a normal machine (issue 28): `localhost` is the sandbox's own loopback, proxy variables
// or not; and a run without network fails at once and says so: its proxy answers 403 "network is off for <skill>
// in this world", and the result names where it tried and how an operator allows it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import type { Executor } from '../../src/exec/types.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

// A web server the script starts itself, then fetches at localhost, as webapp-testing's with_server.py does.
const LOCAL_SERVER = `#!/bin/sh
cd "$TMPDIR" && echo served-locally > index.html
python3 -m http.server 8765 --bind 127.0.0.1 >/dev/null 2>&1 &
for i in $(seq 50); do curl -s --max-time 2 http://localhost:8765/index.html && exit 0; sleep 0.1; done
exit 1
`;

let skill: TempSkill;
let executor: Executor;

beforeAll(async () => {
  skill = await makeSkill();
  await skill.write('scripts/local.sh', LOCAL_SERVER);
  await skill.write('scripts/hosts.sh', '#!/bin/sh\ncat /etc/hosts; hostname\n');
  // The slowest of the three to start: the proxy must be there by the time it asks.
  await skill.write('scripts/npm.sh', '#!/bin/sh\ncd "$TMPDIR" && npm install left-pad --no-audit --no-fund --cache "$TMPDIR/npm-cache" 2>&1\n');
  await skill.write('scripts/curl.sh', '#!/bin/sh\nsleep 0.3\ncurl -sS --fail-with-body --max-time 20 http://files.example.org/data.csv 2>&1\n');
  // A docx check as the office skills do it: lxml loads an OOXML schema whose import names dublincore.org's, and
  // goes on without it (the run succeeds); then a mix of such a lookup and a real request.
  await skill.write('scripts/schema.sh', '#!/bin/sh\nsleep 0.3\ncurl -s --max-time 20 http://dublincore.org/schemas/xmls/qdc/2003/04/02/dc.xsd >/dev/null; curl -s --max-time 20 http://purl.org/dc/elements/1.1/ >/dev/null; echo validated\n');
  await skill.write('scripts/mixed.sh', '#!/bin/sh\nsleep 0.3\ncurl -s --max-time 20 http://www.w3.org/2001/xml.xsd >/dev/null; curl -sS --fail --max-time 20 http://files.example.org/data.csv 2>&1\n');
  await skill.write('scripts/node.sh', '#!/bin/sh\nsleep 0.3\ncurl -sS --max-time 20 https://pypi.org/simple/ 2>&1\n');
  executor = createExecutor({ timeoutMs: 30_000 });
});
afterAll(async () => {
  executor?.close();
  await skill?.remove();
});

describe('the sandbox as a normal machine', () => {
  it('has /etc/hosts naming localhost and its own hostname', async () => {
    const result = await executor.run({ skillDir: skill.dir, script: 'scripts/hosts.sh' });
    expect(result.stdout).toMatch(/^127\.0\.0\.1\tlocalhost$/m);
    expect(result.stdout).toMatch(/\tsandbox\nsandbox\n$/);
  });

  it('reaches a server the script started at localhost, with and without network (NO_PROXY covers it)', async () => {
    for (const network of [false, true]) {
      const result = await executor.run({ skillDir: skill.dir, script: 'scripts/local.sh', network });
      expect({ network, stdout: result.stdout, status: result.status }).toEqual({ network, stdout: 'served-locally\n', status: 'ok' });
    }
  });
});

describe('a run without network', () => {
  it('npm install fails within 2 s with the proxy saying network is off, and the result names the host and the fix', async () => {
    const result = await executor.run({ skillDir: skill.dir, skillId: 'web-builder', script: 'scripts/npm.sh' });
    expect(result.status).toBe('failed');
    expect(result.durationMs).toBeLessThan(2_000 + NPM_START_MS);
    expect(result.stdout).toMatch(/403/);
    expect(result.networkNotice).toBe(
      'network is off for web-builder in this world: it tried to reach registry.npmjs.org:443. An operator allows it with `network: [web-builder]` in SKILLBOT_CONFIG, which opens the network (public addresses, through the egress proxy) to every run of web-builder in this world.',
    );
  });

  it('curl over http and https fails at once with the policy in its words', async () => {
    const plain = await executor.run({ skillDir: skill.dir, script: 'scripts/curl.sh' });
    expect(plain.status).toBe('failed');
    expect(plain.durationMs).toBeLessThan(2_000);
    expect(plain.stdout).toContain('network is off for skill in this world: skillbot did not connect to files.example.org:80. An operator allows it with `network: [skill]` in SKILLBOT_CONFIG, which opens the network to every run of skill in this world.');
    expect(plain.networkNotice).toMatch(/it tried to reach files\.example\.org:80\. An operator allows it with `network: \[skill\]`/);
    const tls = await executor.run({ skillDir: skill.dir, script: 'scripts/node.sh' });
    expect(tls.status).toBe('failed');
    expect(tls.durationMs).toBeLessThan(2_000);
    expect(tls.stdout).toMatch(/CONNECT tunnel failed, response 403/);
    expect(tls.networkNotice).toMatch(/it tried to reach pypi\.org:443\./);
  });

  it('a parser reaching for an XML vocabulary (a namespace or schema host) is no connection: no notice, or only the real ones', async () => {
    const schema = await executor.run({ skillDir: skill.dir, skillId: 'docx', script: 'scripts/schema.sh' });
    expect(schema.status).toBe('ok');
    expect(schema.stdout).toBe('validated\n');
    expect(schema.networkNotice).toBeUndefined();
    const mixed = await executor.run({ skillDir: skill.dir, skillId: 'docx', script: 'scripts/mixed.sh' });
    expect(mixed.networkNotice).toMatch(/^network is off for docx in this world: it tried to reach files\.example\.org:80\. /);
    expect(mixed.networkNotice).not.toContain('w3.org');
  });
});

/** npm itself takes most of a second to start on a busy machine before it asks anything. */
const NPM_START_MS = 1_500;
