// A skill of our own written the way public Linear skills are (openai/skills' `linear`: bare tool names such as
// `list_issues`, its server named only in another client's setup step), run against our stand-in for Linear's
// MCP server: what the model is told when the skill loads, the calls it makes in rounds, what the tracker holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastToolResult, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { SkillFixture } from '../agent/harness.ts';
import { type LinearStandIn, startLinearStandIn } from './fixtures/linearStandIn.ts';
import { type McpHarness, startMcpHarness } from './harness.ts';

const TRIAGE: SkillFixture = {
  name: 'bug-intake',
  description: 'File and triage bugs in Linear.',
  body: [
    '# Bug intake',
    '## Step 0: if Linear is not connected',
    'Run `codex mcp add linear --url https://mcp.linear.app/mcp`, then `codex mcp login linear`, and restart.',
    '## Step 1',
    'Read first (`list_teams`, `list_issues`), then write (`create_issue`) with the team and priority.',
  ].join('\n'),
};

let linear: LinearStandIn;
let bot: McpHarness;
let elsewhere: McpHarness;
beforeAll(async () => {
  linear = await startLinearStandIn({ staticTokens: { 'lin_api_ops': 'ops' } });
  const servers = { linear: { type: 'http' as const, url: linear.url, headers: { Authorization: 'Bearer lin_api_ops' } } };
  bot = await startMcpHarness(servers, { mcp: ['linear'] }, () => {}, [TRIAGE]);
  elsewhere = await startMcpHarness(servers, { mcp: [] }, () => {}, [TRIAGE]);
}, 60_000);
afterAll(async () => {
  await bot?.close();
  await elsewhere?.close();
  await linear?.close();
});

describe('a skill written for Linear, against the stand-in', () => {
  it("tells the model how the skill's tool names are called here and to skip its setup steps; its workflow runs, each write on a card", async () => {
    const seen: string[] = [];
    const tools: string[][] = [];
    bot.answers.push({ option: 'yes_once' }, { option: 'yes_once' });
    bot.fake.setBrain((req) => {
      tools.push(req.tools.map((tool) => tool.name));
      return stepsBrain(
        [
          toolUseReply('load_skill', { skill_id: 'bug-intake' }, { text: 'Using the bug intake skill.' }),
          toolUseReply('mcp__linear__create_issue', { title: 'Search returns stale results', team: 'ENG', priority: 2 }, { text: 'Filing it.' }),
          toolUseReply('mcp__linear__list_issues', { team: 'ENG', state: 'Todo' }, { text: 'Checking the queue.' }),
          (request) => textReply(`queue: ${/"identifier": "ENG-\d+",\s+"title": "Search returns stale results"/.test(lastToolResult(request)?.content ?? '') ? 'has it' : 'lacks it'}`),
        ],
        seen,
      )(req);
    });
    const { reply } = await bot.say('File a bug: search returns stale results, high priority, Engineering.', 'intake');
    expect(seen[0]).toContain("These instructions use the MCP server linear. Here a server's tools are mcp__SERVER__TOOL: a tool the instructions name `TOOL` or `Linear:TOOL` is mcp__linear__TOOL");
    expect(seen[0]).toContain("skip the instructions' steps for adding, configuring or logging in to an MCP server");
    expect(tools[0]).toEqual(expect.arrayContaining(['mcp__linear__create_issue', 'mcp__linear__list_issues', 'mcp__linear__list_teams']));
    const [create, list] = bot.questions.slice(-2);
    expect(create!.title).toBe('Call mcp__linear__create_issue (MCP server linear)?');
    expect(create!.body).toContain('"title": "Search returns stale results"');
    expect(create!.body).toContain('The server says of this tool (its own claim, not checked): may change things, not destructive.');
    expect(list!.body).toContain('read-only');
    expect(reply).toContain('queue: has it');
    const filed = linear.tracker.issues.find((issue) => issue.title === 'Search returns stale results');
    expect(filed?.priority).toBe(2);
    expect(linear.calls.map((call) => `${call.tool}@${call.login}`)).toEqual(['create_issue@ops', 'list_issues@ops']);
  }, 60_000);

  it('in a world that does not offer the server, says so when the skill loads, and offers none of its tools', async () => {
    const seen: string[] = [];
    const tools: string[][] = [];
    elsewhere.fake.setBrain((req) => {
      tools.push(req.tools.map((tool) => tool.name));
      return stepsBrain([toolUseReply('load_skill', { skill_id: 'bug-intake' }), textReply('told')], seen)(req);
    });
    await elsewhere.say('File a bug.', 'intake');
    expect(seen[0]).toContain('These instructions use the MCP server linear, which is not offered here (MCP servers here: none): those tools cannot be called.');
    expect(tools[0]!.filter((name) => name.startsWith('mcp__'))).toEqual([]);
  }, 60_000);
});
