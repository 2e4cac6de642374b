// The install settings in SKILLBOT_CONFIG: who installs where, the policy, and turning it off.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, worldSettings } from '../../src/config/config.ts';
import { parseSource, sourceAllowed } from '../../src/install/source.ts';

const dir = mkdtempSync(join(tmpdir(), 'skillbot-install-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configWith(yaml: string) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  return loadConfig({ SKILLBOT_CONFIG: file });
}

describe('install settings', () => {
  it("installers default to a world's approvers; a world's own list replaces them; the policy is warn unless set", () => {
    const config = configWith(`defaults:\n  approvers: [UA]\nworlds:\n  'slack:T1:C1':\n    approvers: [UB]\n  'slack:T1:C2':\n    installers: [UC]\n    installPolicy: block\n`);
    expect(worldSettings(config, 'slack:T1:C1')).toMatchObject({ installers: ['UA', 'UB'], installPolicy: 'warn' });
    expect(worldSettings(config, 'slack:T1:C2')).toMatchObject({ installers: ['UC'], installPolicy: 'block' });
    expect(worldSettings(config, 'slack:T1:C3')).toMatchObject({ installers: ['UA'] });
    expect(config.install).toMatchObject({ enabled: true, githubUrl: 'https://github.com', maxMB: 100 });
    expect(config.install.sources).toBeUndefined();
  });

  it('reads install: false, sources, the policy command and admins; refuses what it does not know, naming it', () => {
    expect(configWith('install: false\n').install.enabled).toBe(false);
    const config = configWith(`admins: [UOPS]\ninstall:\n  sources: ['github:acme/*']\n  policyCommand: /usr/bin/true\n  maxMB: 5\n`);
    expect(config.admins).toEqual(['UOPS']);
    expect(config.install).toMatchObject({ sources: ['github:acme/*'], policyCommand: '/usr/bin/true', maxMB: 5 });
    expect(() => configWith('install:\n  source: [x]\n')).toThrow(/install/);
    expect(() => configWith("defaults:\n  installPolicy: maybe\n")).toThrow(/defaults\.installPolicy/);
  });

  it('install.sources lets through only what it names', () => {
    const source = (text: string) => {
      const parsed = parseSource(text, 'https://github.com');
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.source;
    };
    const patterns = ['github:acme/*', 'https://git.example.com/team/*', 'file:*'];
    expect(sourceAllowed(source('github:acme/tools/skills/pdf@v1'), patterns)).toBe(true);
    expect(sourceAllowed(source('github:evil/tools'), patterns)).toBe(false);
    expect(sourceAllowed(source('https://git.example.com/team/skills.git#main'), patterns)).toBe(true);
    expect(sourceAllowed(source('https://git.example.com/other/skills.git'), patterns)).toBe(false);
    expect(sourceAllowed(source('file:made.skill'), patterns)).toBe(true);
    expect(sourceAllowed(source('file:made.skill'), ['github:acme/tools'])).toBe(false);
    expect(sourceAllowed(source('github:acme/tools/skills/x'), ['github:acme/tools'])).toBe(true);
    expect(sourceAllowed(source('github:acme/toolsX'), ['github:acme/tools'])).toBe(false);
  });
});
