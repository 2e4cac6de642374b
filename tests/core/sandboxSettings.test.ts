// SCRIPT_SANDBOX, the SCRIPT_* bounds and the per-world `network` setting; and the one warning at start.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { ConfigError, loadConfig, worldAllowsNetwork, worldSettings } from '../../src/config/config.ts';
import { executorFromConfig } from '../../src/exec/fromConfig.ts';
import { silentLogger } from '../../src/ops/log.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-sandbox-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sandbox settings', () => {
  it('default to bwrap and the documented bounds; an empty value means the default', () => {
    const config = loadConfig({ SCRIPT_SANDBOX: '', SCRIPT_MEMORY_MB: '' });
    expect(config.sandbox).toEqual({
      mode: 'bwrap',
      limits: {
        maxProcesses: 256,
        memoryBytes: 1024 ** 3,
        maxFileBytes: 100 * 1024 ** 2,
        cpuSeconds: 60,
        maxOpenFiles: 1024,
        homeBytes: 256 * 1024 ** 2,
        tmpBytes: 256 * 1024 ** 2,
        shmBytes: 64 * 1024 ** 2,
      },
      maxPerChat: 2,
      uidBase: 100_000,
    });
  });

  it('take off and numbers from the environment', () => {
    const config = loadConfig({ SCRIPT_SANDBOX: 'off', SCRIPT_MAX_PROCESSES: '64', SCRIPT_MEMORY_MB: '512', SCRIPT_MAX_PER_CHAT: '1' });
    expect(config.sandbox.mode).toBe('off');
    expect(config.sandbox.limits.maxProcesses).toBe(64);
    expect(config.sandbox.limits.memoryBytes).toBe(512 * 1024 ** 2);
    expect(config.sandbox.maxPerChat).toBe(1);
  });

  it('take the sizes of HOME and /tmp, and the sandbox uid base, from the environment', () => {
    const config = loadConfig({ SCRIPT_HOME_MB: '32', SCRIPT_TMP_MB: '64', SCRIPT_SANDBOX_UID_BASE: '200000' });
    expect(config.sandbox.limits.homeBytes).toBe(32 * 1024 ** 2);
    expect(config.sandbox.limits.tmpBytes).toBe(64 * 1024 ** 2);
    expect(config.sandbox.uidBase).toBe(200_000);
    // Root's uid (or a system account's) is never a sandbox's.
    expect(() => loadConfig({ SCRIPT_SANDBOX_UID_BASE: '0' })).toThrow(/SCRIPT_SANDBOX_UID_BASE must be a whole number from 1000/);
    expect(() => loadConfig({ SCRIPT_SANDBOX_UID_BASE: 'nobody' })).toThrow(/SCRIPT_SANDBOX_UID_BASE/);
  });

  it('take a CPU share and the egress DNS servers from the environment, and name a bad one', () => {
    const config = loadConfig({ SCRIPT_CPU_PERCENT: '50', EGRESS_DNS_SERVERS: '10.0.0.53, 127.0.0.1:5353' });
    expect(config.sandbox.limits.cpuPercent).toBe(50);
    expect(config.sandbox.egressDnsServers).toEqual(['10.0.0.53', '127.0.0.1:5353']);
    expect(() => loadConfig({ SCRIPT_CPU_PERCENT: '0' })).toThrow(/SCRIPT_CPU_PERCENT must be a whole number from 1 to 6400/);
    expect(() => loadConfig({ EGRESS_DNS_SERVERS: 'dns.example.com' })).toThrow(/EGRESS_DNS_SERVERS must be IP addresses separated by commas \(got "dns.example.com"\)/);
  });

  it.runIf(process.getuid?.() === 0)('run skill processes as SCRIPT_SANDBOX_UID_BASE + slot when the bot is root', async () => {
    const skill = join(dir, 'uid-skill');
    await mkdir(join(skill, 'scripts'), { recursive: true });
    await writeFile(join(skill, 'scripts', 'id.sh'), '#!/bin/sh\nid -u\n');
    await chmod(join(skill, 'scripts', 'id.sh'), 0o755);
    const executor = executorFromConfig(loadConfig({ SCRIPT_SANDBOX_UID_BASE: '123400' }), silentLogger());
    const result = await executor.run({ skillDir: skill, script: 'scripts/id.sh' });
    expect(result.stdout).toBe('123400\n');
  });

  it('name the variable when a value is wrong', () => {
    expect(() => loadConfig({ SCRIPT_SANDBOX: 'docker' })).toThrow(ConfigError);
    expect(() => loadConfig({ SCRIPT_SANDBOX: 'docker' })).toThrow(/SCRIPT_SANDBOX must be one of bwrap, off/);
    expect(() => loadConfig({ SCRIPT_MAX_PROCESSES: 'lots' })).toThrow(/SCRIPT_MAX_PROCESSES must be a whole number/);
  });

  it('give the network only to the skills a world lists', async () => {
    const file = join(dir, 'worlds.yaml');
    await writeFile(
      file,
      "defaults:\n  network: [weather]\nworlds:\n  'slack:T1:C1':\n    network: ['*']\n  'slack:T1:C2':\n    network: []\n",
    );
    const config = loadConfig({ SKILLBOT_CONFIG: file });
    expect(worldAllowsNetwork(worldSettings(config, 'terminal:local'), 'weather')).toBe(true);
    expect(worldAllowsNetwork(worldSettings(config, 'terminal:local'), 'repo-stats')).toBe(false);
    expect(worldAllowsNetwork(worldSettings(config, 'slack:T1:C1'), 'repo-stats')).toBe(true);
    expect(worldAllowsNetwork(worldSettings(config, 'slack:T1:C2'), 'weather')).toBe(false);
  });

  it('give each world its egressAllow (ranges and host names), its own replacing the defaults', async () => {
    const file = join(dir, 'egress.yaml');
    await writeFile(
      file,
      "defaults:\n  egressAllow: ['10.20.0.0/16', jira.corp.example]\nworlds:\n  'slack:T1:C1':\n    egressAllow: ['*.svc.example']\n",
    );
    const config = loadConfig({ SKILLBOT_CONFIG: file });
    expect(worldSettings(config, 'terminal:local').egressAllow).toEqual(['10.20.0.0/16', 'jira.corp.example']);
    expect(worldSettings(config, 'slack:T1:C1').egressAllow).toEqual(['*.svc.example']);
  });

  it('reject an egressAllow entry that is neither a range nor a host name, naming the field and the entry', async () => {
    const file = join(dir, 'bad-egress.yaml');
    await writeFile(file, "worlds:\n  'slack:T1:C1':\n    egressAllow: ['10.0.0.0/33']\n");
    expect(() => loadConfig({ SKILLBOT_CONFIG: file })).toThrow(/worlds\.slack:T1:C1\.egressAllow: "10\.0\.0\.0\/33" is not an address range/);
    await writeFile(file, "defaults:\n  egressAllow: ['http://jira']\n");
    expect(() => loadConfig({ SKILLBOT_CONFIG: file })).toThrow(/defaults\.egressAllow: "http:\/\/jira" is/);
  });

  it('reject a network setting that is not a list of skill ids, naming the field', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'defaults:\n  network: yes\n');
    expect(() => loadConfig({ SKILLBOT_CONFIG: file })).toThrow(/defaults\.network/);
  });
});

describe('starting with an unusable sandbox', () => {
  async function warningsOfStart(env: Record<string, string>): Promise<string[]> {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const app = await createApp(loadConfig({ STORE_URL: 'memory://', SKILLS_DIRS: dir, ...env }), logger, { watchSkills: false });
    await app.close();
    return lines.map((line) => (JSON.parse(line) as { msg: string }).msg).filter((msg) => /sandbox|SCRIPT_SANDBOX/i.test(msg));
  }

  it('still starts, and logs one warning naming the fix', async () => {
    await writeFile(join(dir, 'bwrap'), "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
    await chmod(join(dir, 'bwrap'), 0o755);
    await chmod(dir, 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${dir}:${saved ?? ''}`;
    try {
      const warnings = await warningsOfStart({});
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/sandbox is unusable.*uid map.*every skill script will be refused.*AppArmor/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('with SCRIPT_SANDBOX=off, logs a loud warning', async () => {
    const warnings = await warningsOfStart({ SCRIPT_SANDBOX: 'off' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/SCRIPT_SANDBOX=off: SKILL SCRIPTS RUN UNSANDBOXED/);
  });

  it('logs no sandbox warning when bwrap works', async () => {
    expect(await warningsOfStart({})).toEqual([]);
  });
});
