// `access`, `limits` and `bots` in SKILLBOT_CONFIG: today's behaviour by default, a world's own over `defaults`,
// and a mistake named with where it is.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, worldSettings } from '../../src/config/config.ts';

const folder = await mkdtemp(join(tmpdir(), 'skillbot-access-config-'));
afterAll(() => rm(folder, { recursive: true, force: true }));

async function configFrom(yaml: string) {
  const file = join(folder, `${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, yaml);
  return { file, load: () => loadConfig({ SKILLBOT_CONFIG: file }) };
}

describe('access settings', () => {
  it('default to everyone allowed, no limits and no bot', () => {
    const settings = worldSettings(loadConfig({}), 'slack:T1:C1');
    expect(settings.access).toEqual({ users: [], groups: [], guests: 'allow', external: 'allow', dms: 'allow' });
    expect(settings.limits).toEqual({});
    expect(settings.bots).toEqual({ allow: [], maxTurnsPerMinute: 20, cooldownS: 60 });
  });

  it("take a world's own fields over the defaults, field by field", async () => {
    const { load } = await configFrom(`
defaults:
  access: { guests: deny, external: deny }
  limits: { turnsPerPersonPerHour: 30 }
worlds:
  slack:T1:C1:
    access: { users: [U1], guests: allow }
    limits: { tokensPerPersonPerDay: 50000 }
    bots: { allow: [B1], cooldownS: 5 }
`);
    const own = worldSettings(load(), 'slack:T1:C1');
    expect(own.access).toEqual({ users: ['U1'], groups: [], guests: 'allow', external: 'deny', dms: 'allow' });
    expect(own.limits).toEqual({ turnsPerPersonPerHour: 30, tokensPerPersonPerDay: 50000 });
    expect(own.bots).toEqual({ allow: ['B1'], maxTurnsPerMinute: 20, cooldownS: 5 });
    expect(worldSettings(load(), 'slack:T1:C2').access.guests).toBe('deny');
  });

  it('names a wrong value and where it is', async () => {
    const { file, load } = await configFrom('worlds:\n  slack:T1:C1:\n    access: { guests: maybe }\n');
    expect(load).toThrow(`${file}: worlds.slack:T1:C1.access.guests: Invalid option: expected one of "allow"|"deny"`);
    const limits = await configFrom('defaults:\n  limits: { turnsPerPersonPerHour: 0 }\n');
    expect(limits.load).toThrow(/defaults\.limits\.turnsPerPersonPerHour: Too small/);
    const bots = await configFrom('defaults:\n  bots: { allow: [B1], everyone: true }\n');
    expect(bots.load).toThrow(/defaults\.bots: Unrecognized key: "everyone"/);
  });
});
