import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { createRecordSealer } from '../../src/approvals/recordSeal.ts';
import { loadStateKey, stateKeyCheck } from '../../src/keys/stateKey.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillbot-statekey-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the state key of grants and approval answers', () => {
  it('is made once into a 0600 file beside the SQLite store, and read back on the next start', async () => {
    const first = loadStateKey({ storeUrl: 'sqlite://./state/skillbot.sqlite' }, dir);
    expect(first).toMatchObject({ source: 'file', file: join(dir, 'state', 'state.key') });
    expect(first.warning).toBeUndefined();
    expect((await stat(join(dir, 'state', 'state.key'))).mode & 0o777).toBe(0o600);
    const again = loadStateKey({ storeUrl: 'sqlite://./state/skillbot.sqlite' }, dir);
    expect(again.secret.equals(first.secret)).toBe(true);
    expect((await readFile(join(dir, 'state', 'state.key'), 'utf8')).trim()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('comes from SKILLBOT_STATE_KEY when set; Redis without it warns that other instances cannot verify', () => {
    const env = loadStateKey({ stateKey: 'k'.repeat(40), storeUrl: 'redis://127.0.0.1:6381' }, dir);
    expect(env).toMatchObject({ source: 'env' });
    expect(env.warning).toBeUndefined();
    const redis = loadStateKey({ storeUrl: 'redis://127.0.0.1:6381' }, dir);
    expect(redis.file).toBe(join(dir, 'data', 'state.key'));
    expect(redis.warning).toMatch(/SKILLBOT_STATE_KEY is unset.*Set the same SKILLBOT_STATE_KEY on every instance/);
  });

  it('gives skillbot doctor one line, failing for Redis without SKILLBOT_STATE_KEY', () => {
    expect(stateKeyCheck({ storeUrl: 'redis://127.0.0.1:6381' }, dir)).toMatchObject({ ok: false, line: expect.stringMatching(/^state key: STORE_URL is Redis but SKILLBOT_STATE_KEY is unset/) });
    expect(stateKeyCheck({ storeUrl: 'redis://127.0.0.1:6381', stateKey: 'k'.repeat(32) }, dir)).toMatchObject({ ok: true });
    expect(stateKeyCheck({ storeUrl: 'sqlite://./skillbot.sqlite' }, dir)).toEqual({ ok: true, line: `state key: ${join(dir, 'state.key')} (mode 0600; set SKILLBOT_STATE_KEY before adding instances)` });
  });

  it('refuses a damaged key file and a short SKILLBOT_STATE_KEY with a message naming the fix', async () => {
    await writeFile(join(dir, 'state.key'), 'not a key');
    expect(() => loadStateKey({ storeUrl: 'sqlite://./skillbot.sqlite' }, dir)).toThrow(ConfigError);
    expect(() => loadStateKey({ storeUrl: 'sqlite://./skillbot.sqlite' }, dir)).toThrow(/state\.key does not hold a state key/);
    expect(() => loadConfig({ SKILLBOT_STATE_KEY: 'short' })).toThrow(/SKILLBOT_STATE_KEY must be at least 32 characters \(got 5\)/);
    expect(loadConfig({ SKILLBOT_STATE_KEY: '' }).stateKey).toBeUndefined();
  });

  it('seals a record so that any change to it, or its key, or another secret, fails the check', () => {
    const sealer = createRecordSealer(Buffer.alloc(32, 1));
    const fields = { skillId: 'deploy', requesterId: 'U1', expiresAt: 5 };
    const mac = sealer.seal('grant', 'k1', fields);
    expect(sealer.verify('grant', 'k1', { expiresAt: 5, requesterId: 'U1', skillId: 'deploy' }, mac)).toBe(true);
    expect(sealer.verify('grant', 'k1', { ...fields, requesterId: 'U2' }, mac)).toBe(false);
    expect(sealer.verify('grant', 'k2', fields, mac)).toBe(false);
    expect(sealer.verify('approval', 'k1', fields, mac)).toBe(false);
    expect(createRecordSealer(Buffer.alloc(32, 2)).verify('grant', 'k1', fields, mac)).toBe(false);
    expect(sealer.verify('grant', 'k1', fields, undefined)).toBe(false);
  });
});
