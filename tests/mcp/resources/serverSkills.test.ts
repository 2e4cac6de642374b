// A server's skills (the skills extension) as the bot fetches them: listed as `<server>:<path>` with their
// frontmatter only, materialised on load into a folder named by the manifest digest with every file verified; a
// changed script is another manifest (another folder: an approval of the old one does not cover it); bytes that do
// not match the server's own digest are refused. Our own server on the current SDK, in the sandbox.
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listServerSkills, materializeServerSkill } from '../../../src/mcp/serverSkills.ts';
import { makeSkillsDir } from '../../platforms/skills.ts';
import { ALICE, type SlackBot, useSlackBot } from '../../slack/harness.ts';
import { ourStdioServerConfig } from '../fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, '..', 'fixtures', 'skillServer.mjs');
const setup = await makeSkillsDir([]);
// The server's own folder (never one of the bot's: a stdio server never sees those), readable by the sandbox's user.
const served = await mkdtemp(join(tmpdir(), 'skillbot-skill-server-'));
await chmod(served, 0o755);
const stateFile = join(served, 'served-version');
const root = await mkdtemp(join(tmpdir(), 'skillbot-server-skills-'));
afterAll(async () => {
  await setup.remove();
  await rm(root, { recursive: true, force: true });
  await rm(served, { recursive: true, force: true });
});

let bot: SlackBot;
await writeFile(stateFile, 'v1');
const configFile = join(setup.dir, 'skillbot.yaml');
await writeFile(configFile, ourStdioServerConfig('releases', SERVER, { args: [stateFile] }));
useSlackBot((started) => ({ bot } = started), { env: { SKILLBOT_CONFIG: configFile } });

async function client() {
  const connection = await bot.app.mcp!.tools.reach('releases', { worldId: 'slack:T1:C1', requesterId: ALICE, mcp: ['releases'], network: [], egressAllow: [] });
  if (!connection.ok) throw new Error(connection.why);
  return connection.client;
}

describe("a server's skills", () => {
  it('lists them as <server>:<path> with their frontmatter, the nested one apart', async () => {
    const { skills, refused } = await listServerSkills(await client(), 'releases', 10_000);
    expect(refused).toEqual([]);
    expect(skills.map((skill) => [skill.id, skill.name, skill.description])).toEqual([
      ['releases:release-notes', 'release-notes', 'Writes the release notes of a version.'],
      ['releases:release-notes/draft', 'draft', 'Drafts release notes before they are final.'],
    ]);
  }, 60_000);

  it('materialises a verified copy named by its manifest, and a changed manifest is another folder', async () => {
    const [v1] = (await listServerSkills(await client(), 'releases', 10_000)).skills;
    const first = await materializeServerSkill(await client(), v1!, root, 10_000);
    if (!first.ok) throw new Error(first.why);
    expect((await readdir(first.dir, { recursive: true })).sort()).toEqual(['SKILL.md', 'scripts', 'scripts/notes.sh']);
    expect(await readFile(join(first.dir, 'scripts', 'notes.sh'), 'utf8')).toContain('v1');
    await writeFile(stateFile, 'v2');
    const [v2] = (await listServerSkills(await client(), 'releases', 10_000)).skills;
    expect(v2!.manifestDigest).not.toBe(v1!.manifestDigest);
    const second = await materializeServerSkill(await client(), v2!, root, 10_000);
    if (!second.ok) throw new Error(second.why);
    expect(second.dir).not.toBe(first.dir);
    expect(await readFile(join(second.dir, 'scripts', 'notes.sh'), 'utf8')).toContain('v2');
  }, 60_000);

  it("refuses a skill whose bytes do not match the server's own digest, and keeps nothing of it", async () => {
    await writeFile(stateFile, 'tampered');
    const [tampered] = (await listServerSkills(await client(), 'releases', 10_000)).skills;
    // A root of its own: v1's verified folder from before would be reused without asking the server again.
    const fresh = join(root, 'fresh');
    const result = await materializeServerSkill(await client(), tampered!, fresh, 10_000);
    expect(result).toEqual({ ok: false, why: 'the skill releases:release-notes was refused: skill://release-notes/scripts/notes.sh failed its digest check against the server\'s own listing' });
    const kept = await readdir(join(fresh, (await readdir(fresh))[0]!));
    expect(kept.filter((name) => name.startsWith(tampered!.manifestDigest))).toEqual([]);
  }, 60_000);
});
