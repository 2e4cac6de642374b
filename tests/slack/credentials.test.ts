// Issue 34, credentials end to end through Slack: a world with `credentials`, a skill whose script curls a server
// outside the host (a network namespace, its own CA) with the placeholder, approved by a click. The far server
// receives the real value (the script prints a SHA-256 of what it echoed, never the value), and no platform call
// (every request the Slack fake received: API calls, messages, private notes, response_url posts) and no model
// request (every one the Anthropic fake received) holds the value.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeDns, startFakeDns } from '../fakes/dnsServer.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { openTestNetns, type TestNetns } from '../exec/testNetns.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, approvalIdOf, approvalIn, CHANNEL, type SlackBot, startSlackBot, waitForReply } from './harness.ts';

const SECRET = 'xoxp-slack-e2e-secret-5150';
const CALL = `#!/bin/sh
echo "sent Bearer $API_TOKEN"
curl -sS --max-time 10 -H "Authorization: Bearer $API_TOKEN" https://api.example.test:8443/echo \\
  | python3 -c 'import hashlib, json, sys; print("received sha256", hashlib.sha256(json.load(sys.stdin)["authorization"].encode()).hexdigest())'
`;
const API_SKILL = {
  id: 'api-report',
  name: 'api-report',
  description: 'Reports from the team API.',
  frontmatter: 'run-on-load: [scripts/call.sh]',
  body: 'scripts/call.sh runs when this skill loads.',
  files: { 'scripts/call.sh': CALL },
};

let netns: TestNetns;
let dns: FakeDns;
let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: SlackBot;
let dir: string;
const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  netns = await openTestNetns();
  dns = await startFakeDns({ 'api.example.test': netns.address });
  dir = await mkdtemp(path.join(os.tmpdir(), 'skillbot-slack-cred-'));
  // The bot trusts the outside server's CA (the proxy verifies the upstream), as an operator's NODE_EXTRA_CA_CERTS would.
  await writeFile(path.join(dir, 'outside-ca.pem'), netns.cert);
  process.env.NODE_EXTRA_CA_CERTS = path.join(dir, 'outside-ca.pem');
  const world = { network: [API_SKILL.id], egressAllow: [netns.subnet], credentials: [{ host: 'api.example.test', header: 'Authorization', value: `Bearer ${SECRET}`, env: 'API_TOKEN' }] };
  await writeFile(path.join(dir, 'skillbot.yaml'), JSON.stringify({ defaults: world }));
  slack = await startFakeSlack();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir([API_SKILL]);
  bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: { SKILLBOT_CONFIG: path.join(dir, 'skillbot.yaml'), EGRESS_DNS_SERVERS: dns.server } });
}, 60_000);
afterAll(async () => {
  await bot?.stop();
  await slack?.close();
  await anthropic?.close();
  await skills?.remove();
  if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
  await dns?.close();
  await netns?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('a world with credentials, through Slack', () => {
  it('the far server receives the value; no Slack call and no model request ever holds it', async () => {
    const digest = createHash('sha256').update(`Bearer ${SECRET}`).digest('hex');
    anthropic.setBrain((req) => {
      const result = lastToolResult(req);
      if (!result) return toolUseReply('load_skill', { skill_id: API_SKILL.id });
      // The answer quotes what the script printed, so the run's output reaches Slack too.
      const sent = /sent Bearer \S+/.exec(result.content)?.[0] ?? 'nothing sent';
      return textReply(result.content.includes(`received sha256 ${digest}`) ? `the value arrived (${sent})` : `not as expected: ${result.content}`);
    });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> what does the API say?` });
    const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
    await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, threadTs: question.threadTs ?? '', actionId: 'hitl_yes_once', value: approvalIdOf(question) });
    await waitForReply(slack, CHANNEL, ts, 'the value arrived (sent Bearer skillbot-credential-API_TOKEN)');

    const platform = JSON.stringify([slack.calls, slack.messages, slack.deleted, slack.ephemerals, slack.responses, slack.assistantCalls, slack.views]);
    expect(platform).toContain('skillbot-credential-API_TOKEN');
    expect(platform).not.toContain(SECRET);
    const model = anthropic.requests.map((request) => request.rawBody).join('\n');
    expect(model).toContain(`received sha256 ${digest}`);
    expect(model).not.toContain(SECRET);
  }, 60_000);
});
