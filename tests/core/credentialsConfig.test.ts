// `credentials` in SKILLBOT_CONFIG (issue 34): values read from the bot's environment at start, a world's own list
// replacing the defaults', and every mistake one line naming where it is.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, worldSettings } from '../../src/config/config.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(os.tmpdir(), 'skillbot-credentials-config-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function configWith(yaml: string): Promise<string> {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, yaml);
  return file;
}

describe('credentials', () => {
  it('take ${VAR} from the environment, and a world\'s own list replaces the defaults\'', async () => {
    const file = await configWith(
      "defaults:\n  credentials:\n    - { host: api.github.com, header: Authorization, value: 'Bearer ${GITHUB_TOKEN}', env: GITHUB_TOKEN }\n" +
        "worlds:\n  'slack:T1:C1':\n    credentials:\n      - { host: '*.Example.com', header: X-Api-Key, value: '${KEY}', env: KEY }\n",
    );
    const config = loadConfig({ SKILLBOT_CONFIG: file, GITHUB_TOKEN: 'ghp_1', KEY: 'k-2' });
    expect(worldSettings(config, 'terminal:local').credentials).toEqual([{ host: 'api.github.com', header: 'Authorization', value: 'Bearer ghp_1', env: 'GITHUB_TOKEN' }]);
    expect(worldSettings(config, 'slack:T1:C1').credentials).toEqual([{ host: '*.example.com', header: 'X-Api-Key', value: 'k-2', env: 'KEY' }]);
  });

  it('stop the start with one line naming an unset (or empty) variable and where it is used', async () => {
    const file = await configWith("worlds:\n  'slack:T1:C1':\n    credentials:\n      - { host: api.github.com, header: Authorization, value: 'Bearer ${GITHUB_TOKEN}', env: GITHUB_TOKEN }\n");
    expect(() => loadConfig({ SKILLBOT_CONFIG: file, GITHUB_TOKEN: '' })).toThrow(
      "worlds.slack:T1:C1.credentials.0.value uses ${GITHUB_TOKEN}, which is not set in the bot's environment: set it, or remove the credential.",
    );
  });

  it('refuse a host with a scheme or an address, a bad header or variable name, and one env used twice', async () => {
    const bad = async (entry: string) => loadConfig({ SKILLBOT_CONFIG: await configWith(`defaults:\n  credentials:\n    - ${entry}\n`) });
    await expect(bad('{ host: https://api.github.com, header: A, value: v, env: E }')).rejects.toThrow(/defaults\.credentials\.0\.host: must be a host name/);
    await expect(bad('{ host: 10.0.0.1, header: A, value: v, env: E }')).rejects.toThrow(/defaults\.credentials\.0\.host/);
    await expect(bad("{ host: a.test, header: 'Bad Header', value: v, env: E }")).rejects.toThrow(/defaults\.credentials\.0\.header: must be a header name/);
    await expect(bad('{ host: a.test, header: A, value: v, env: 1E }')).rejects.toThrow(/defaults\.credentials\.0\.env: must be a variable name/);
    const twice = await configWith('defaults:\n  credentials:\n    - { host: a.test, header: A, value: v, env: E }\n    - { host: b.test, header: A, value: v, env: E }\n');
    expect(() => loadConfig({ SKILLBOT_CONFIG: twice })).toThrow(/defaults\.credentials\.1\.env: "E" names two credentials/);
  });
});
