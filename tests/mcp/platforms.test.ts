// MCP tool calls through Slack and Discord (their fakes speak the real protocols): the card, a stranger's click,
// the requester's "yes for this thread" and "no", configured the way an operator writes SKILLBOT_CONFIG.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_ALLOWED_TEXT } from '../../src/approvals/approvals.ts';
import { type FakeAnthropic, lastToolResult, startFakeAnthropic, stepsBrain, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type OAuthMcp, startOAuthMcp } from './oauthServer.ts';
import { discordDriver } from '../platforms/discordDriver.ts';
import type { PlatformDriver } from '../platforms/driver.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { slackDriver } from '../platforms/slackDriver.ts';
import { EVERYTHING_ENTRY } from './harness.ts';

for (const [name, makeDriver] of [['Slack', slackDriver], ['Discord', discordDriver]] as const) {
  describe(`${name}: MCP tool calls`, () => {
    let anthropic: FakeAnthropic;
    let skills: SkillsDir;
    let driver: PlatformDriver;
    let tracker: OAuthMcp;
    beforeAll(async () => {
      tracker = await startOAuthMcp();
      anthropic = await startFakeAnthropic();
      skills = await makeSkillsDir([]);
      const config = join(skills.dir, 'skillbot.yaml');
      await writeFile(
        config,
        ['mcpServers:', '  everything:', '    command: node', `    args: [${JSON.stringify(EVERYTHING_ENTRY)}, stdio]`, `  tracker: { type: http, url: ${JSON.stringify(tracker.url)} }`, 'defaults:', "  mcp: ['*']", '  mcpNoApproval: [mcp__everything__get-env]', '  approvalTimeoutMs: 3000', ''].join('\n'),
      );
      driver = makeDriver();
      await driver.start(anthropic, { skillsDirs: skills.skillsRoot, storeUrl: `sqlite://${join(skills.dir, 'state.sqlite')}`, env: { SKILLBOT_CONFIG: config } });
    }, 60_000);
    afterAll(async () => {
      await driver?.stop();
      await anthropic?.close();
      await skills?.remove();
      await tracker?.close();
    });

    it('sends the sign-in link to the requester alone, privately', async () => {
      anthropic.setBrain(stepsBrain([toolUseReply('mcp__tracker__connect', {}, { text: 'Connecting.' }), (req) => textReply(`told: ${lastToolResult(req)?.content}`)], []));
      const chat = await driver.mention('alice', 'use the tracker');
      expect(await chat.signInNote('alice', 'tracker')).toMatch(/^To let Claude use tracker for you, connect your account: http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/);
      await chat.waitForAnswer(/told: Not connected to tracker: the person did not connect their tracker account in time/);
      expect(chat.answers().join('\n')).not.toContain('/authorize');
    }, 60_000);

    it("shows the full arguments; a stranger's click does nothing; the requester's yes for this thread covers the next call of the tool, not another; no reaches the model", async () => {
      const seen: string[] = [];
      anthropic.setBrain(
        stepsBrain(
          [
            toolUseReply('mcp__everything__echo', { message: 'from the channel' }, { text: 'Echoing.' }),
            toolUseReply('mcp__everything__echo', { message: 'covered' }, { text: 'Echoing again.' }),
            toolUseReply('mcp__everything__get-sum', { a: 1, b: 2 }, { text: 'Adding.' }),
            toolUseReply('mcp__everything__get-env', {}, { text: 'Environment.' }),
            textReply('finished'),
          ],
          seen,
        ),
      );
      const chat = await driver.mention('alice', 'use everything');
      const first = await chat.waitForQuestion();
      expect(first.text()).toContain('of the MCP server everything (mcp__everything__echo), with these arguments, whole:');
      expect(first.text()).toMatch(/\\?"message\\?": \\?"from the channel\\?"/);
      await first.click('bob', 'yes_once');
      await chat.waitForPrivateNote('bob', NOT_ALLOWED_TEXT);
      expect(first.isOpen()).toBe(true);
      await first.click('alice', 'yes_in_session');
      const second = await chat.waitForQuestion();
      expect(second.text()).toContain('of the MCP server everything (mcp__everything__get-sum)');
      await second.click('alice', 'no');
      await chat.waitForAnswer(/finished/);
      expect(seen[0]).toContain('Echo: from the channel');
      expect(seen[1]).toContain('Echo: covered');
      expect(seen[2]).toMatch(/^The tool call mcp__everything__get-sum did not run: it was declined by .+\. No output exists\.$/);
      // mcpNoApproval: no card; and the server's environment is its own (no key of the bot's).
      expect(seen[3]).not.toContain('ANTHROPIC');
      expect(seen[3]).toContain('PATH');
    }, 60_000);
  });
}
