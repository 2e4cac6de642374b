import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { globalNodeModules } from '../../src/exec/sandbox.ts';
import { SANDBOX_PATHS } from '../../src/config/sandboxPaths.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

const secrets = {
  SLACK_BOT_TOKEN: 'xoxb-secret-slack-token',
  ANTHROPIC_API_KEY: 'sk-ant-secret-key',
  DISCORD_TOKEN: 'discord-secret-token',
  SOME_SECRET: 'some-secret-value',
};

const printEnv = `const fs = require('node:fs');
console.log(JSON.stringify({ env: process.env, cwd: process.cwd(), homeExists: fs.existsSync(process.env.HOME) }));
`;

describe('the environment a skill script sees', () => {
  let skill: TempSkill;
  const saved = new Map<string, string | undefined>();

  beforeEach(async () => {
    skill = await makeSkill();
    for (const [key, value] of Object.entries(secrets)) {
      saved.set(key, process.env[key]);
      process.env[key] = value;
    }
  });
  afterEach(async () => {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await skill.remove();
  });

  async function runPrintEnv(env?: Record<string, string>) {
    await skill.write('scripts/env.cjs', printEnv);
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, script: 'scripts/env.cjs', env });
    expect(result.status).toBe('ok');
    return JSON.parse(result.stdout) as { env: Record<string, string>; cwd: string; homeExists: boolean };
  }

  it('holds none of the bot tokens or keys, by name or by value', async () => {
    const { env } = await runPrintEnv();
    for (const [key, value] of Object.entries(secrets)) {
      expect(env).not.toHaveProperty(key);
      expect(JSON.stringify(env)).not.toContain(value);
    }
  });

  it('holds only PATH, LANG, HOME, TMPDIR, PWD (set by bwrap), the proxy variables, NODE_PATH and the variables configured for the skill', async () => {
    const { env } = await runPrintEnv({ REPORT_API_URL: 'https://reports.example', REPORT_LIMIT: '7' });
    expect(env.REPORT_API_URL).toBe('https://reports.example');
    expect(env.REPORT_LIMIT).toBe('7');
    const proxies = ['ALL_PROXY', 'HTTPS_PROXY', 'HTTP_PROXY', 'NODE_USE_ENV_PROXY', 'NO_PROXY', 'all_proxy', 'http_proxy', 'https_proxy', 'no_proxy'];
    // NODE_PATH names only the global node_modules folders the sandbox shows read-only (where `npm install -g` puts a package).
    const globals = globalNodeModules();
    expect(env.NODE_PATH).toBe(globals.length === 0 ? undefined : globals.join(':'));
    for (const dir of globals) expect(dir.startsWith('/usr/') || dir.startsWith(path.dirname(path.dirname(realpathSync(process.execPath))))).toBe(true);
    const names = ['HOME', 'LANG', 'PATH', 'PWD', 'REPORT_API_URL', 'REPORT_LIMIT', 'TMPDIR', ...proxies, ...(globals.length === 0 ? [] : ['NODE_PATH'])];
    expect(Object.keys(env).sort()).toEqual(names.sort());
    // Even without network: the proxy on the sandbox's own loopback says "network is off" (issue 28); localhost is not proxied.
    expect(env.HTTPS_PROXY).toBe('http://127.0.0.1:3128');
    expect(env.NO_PROXY).toBe('localhost,127.0.0.1,::1');
  });

  it('gives each run its own HOME and TMPDIR: what one run leaves there is gone in the next', async () => {
    await skill.write('scripts/leave.sh', '#!/bin/bash\nls -A "$HOME" "$TMPDIR"\necho left > "$HOME/left"\necho left > "$TMPDIR/left"\n');
    const executor = createExecutor({ timeoutMs: 10_000 });
    const first = await executor.run({ skillDir: skill.dir, script: 'scripts/leave.sh' });
    const second = await executor.run({ skillDir: skill.dir, script: 'scripts/leave.sh' });
    expect(first.status).toBe('ok');
    expect(second.status).toBe('ok');
    expect(second.stdout).not.toContain('left');
    const { env, homeExists } = await runPrintEnv();
    expect(homeExists).toBe(true);
    expect(env.HOME).toBe(SANDBOX_PATHS.home);
    expect(env.TMPDIR).toBe(SANDBOX_PATHS.tmp);
    expect(env.HOME).not.toBe(os.homedir());
  });

  it('configured variables cannot replace the per-run HOME', async () => {
    const { env } = await runPrintEnv({ HOME: '/root' });
    expect(env.HOME).not.toBe('/root');
  });

  it('without a workspace, runs in the skill folder, mounted at /skills/<id>', async () => {
    const { cwd } = await runPrintEnv();
    expect(cwd).toBe(`${SANDBOX_PATHS.skills}/${path.basename(skill.dir)}`);
  });

  it('runs a bash script in the skill folder too, at the id it is given', async () => {
    await skill.write('scripts/where.sh', '#!/bin/bash\npwd\n');
    const result = await createExecutor({ timeoutMs: 10_000 }).run({ skillDir: skill.dir, skillId: 'where-am-i', script: 'scripts/where.sh' });
    expect(result.stdout.trim()).toBe(`${SANDBOX_PATHS.skills}/where-am-i`);
  });
});
