// A server's skills when the catalog cannot list every skill (a budget too small for any line): find_skills finds
// them beside the local ones, and the id it gives loads. Our own skills server (stdio, in the sandbox) between the
// Slack and Anthropic fakes; and what `skillbot mcp list` and `skillbot doctor` say of its skills.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { makeSkillsDir, NOTES_SKILL, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, CHANNEL, type SlackBot, startSlackBot, waitForReply } from '../slack/harness.ts';
import { SERVER_SDK } from './fixtures/serverSdk.ts';

const SERVER = join(import.meta.dirname, 'fixtures', 'skillServer.mjs');

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: SlackBot;
let served: string;
let configFile: string;

beforeAll(async () => {
  served = await mkdtemp(join(tmpdir(), 'skillbot-skill-server-'));
  await chmod(served, 0o755);
  const stateFile = join(served, 'served-version');
  await writeFile(stateFile, 'v1');
  slack = await startFakeSlack();
  anthropic = await startFakeAnthropic();
  // A local `release-notes`: the server's skill of that name is left out; its nested `draft` is not.
  skills = await makeSkillsDir([NOTES_SKILL]);
  configFile = join(skills.dir, 'skillbot.yaml');
  const server = `    args: [${JSON.stringify(SERVER)}, ${JSON.stringify(SERVER_SDK)}, ${JSON.stringify(stateFile)}]`;
  await writeFile(configFile, ['agent:', '  catalogBudgetChars: 200', 'mcpServers:', '  releases:', '    command: node', server, 'defaults:', '  mcp: [releases]', ''].join('\n'));
  bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: { SKILLBOT_CONFIG: configFile } });
}, 60_000);
afterAll(async () => {
  await bot?.stop();
  await slack?.close();
  await anthropic?.close();
  await skills?.remove();
  await rm(served, { recursive: true, force: true });
});

it("find_skills finds a server's skill the catalog had no room for; the id it gives loads, and its files can be viewed", async () => {
  const seen: string[] = [];
  const tools: string[][] = [];
  anthropic.setBrain((req) => {
    tools.push(req.tools.map((tool) => tool.name));
    return stepsBrain(
      [
        toolUseReply('find_skills', { query: 'draft release notes' }, { text: 'Looking for a skill.' }),
        toolUseReply('load_skill', { skill_id: 'releases:release-notes/draft' }, { text: 'Loading the draft skill.' }),
        toolUseReply('str_replace_based_edit_tool', { command: 'view', path: '/skills/releases.release-notes.draft/scripts/draft.sh' }, { text: 'Reading its script.' }),
        textReply('found'),
      ],
      seen,
    )(req);
  });
  const ts = bot.sender.nextTs();
  await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> draft the release notes` });
  await waitForReply(slack, CHANNEL, ts, /found$/);
  expect(tools[0]).toContain('find_skills');
  expect(seen[0]).toContain('release-notes [commits]: Write release notes from a list of commits.');
  expect(seen[0]).toContain('releases:release-notes/draft: Drafts release notes before they are final.');
  expect(seen[0]).not.toContain('releases:release-notes:');
  expect(seen[1]).toContain('status="loaded"');
  // Its instructions without the hidden characters the server put after them.
  expect(seen[1]).toContain('Write a draft with `scripts/draft.sh`.\n');
  expect(seen[1]).toContain('/skills/releases.release-notes.draft');
  // The editor views the loaded server skill where the sandbox mounts it.
  expect(seen[2]).toContain('echo "a draft"');
}, 60_000);

/** The `skillbot` command with this bot's settings, as an operator runs it beside the bot. */
function skillbot(args: string[]): Promise<{ code: number; stdout: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'silent',
    SKILLBOT_CONFIG: configFile,
    SKILLS_DIRS: skills.skillsRoot,
    STORE_URL: `sqlite://${join(skills.dir, 'cli.sqlite')}`,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: anthropic.url,
    WORKSPACES_DIR: join(skills.dir, 'workspaces'),
    INSTALLED_SKILLS_DIR: join(skills.dir, 'installed-skills'),
    MCP_SKILLS_DIR: join(skills.dir, 'mcp-skills'),
  };
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'skillbot.mjs');
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env, cwd: skills.dir, timeout: 90_000 }, (error, stdout) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout }));
  });
}

it("skillbot mcp list names the server's skills; doctor warns of the one a local skill's name wins over", async () => {
  const list = await skillbot(['mcp', 'list']);
  expect(list.stdout).toContain('  skills: releases:release-notes, releases:release-notes/draft');
  const doctor = await skillbot(['doctor']);
  expect(doctor.stdout).toMatch(/^warn {2}mcp releases: stdio, connected, 0 tool\(s\), 2 skill\(s\); left out because a local skill of the same name wins: releases:release-notes$/m);
}, 120_000);
