// read_mcp_resource through Slack: the model reads a server's text resource (hidden characters stripped, as a tool
// result's are) and a binary one, which lands in the chat's workspace; a server the world does not list is refused
// as unknown. The server is our own on the current SDK, over stdio in the sandbox or Streamable HTTP
// (readResource.test.ts, readResourceHttp.test.ts run these same cases).
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, textReply, toolUseReply } from '../../fakes/anthropic.ts';
import type { FakeSlack } from '../../fakes/slack.ts';
import { makeSkillsDir } from '../../platforms/skills.ts';
import { ALICE, DM, type SlackBot, useSlackBot } from '../../slack/harness.ts';
import { type OurServer, startOurServer, type Transport } from '../fixtures/ourServers.ts';

/** The cases, against the resourceServer fixture reached over `transport` (as `notes`, and as `secret`, not offered). */
export async function readResourceCases(transport: Transport): Promise<void> {
  let slack: FakeSlack;
  let anthropic: FakeAnthropic;
  let bot: SlackBot;
  const setup = await makeSkillsDir([]);
  const server: OurServer = await startOurServer('resourceServer', transport);
  afterAll(async () => {
    await setup.remove();
    await server.close();
  });
  const configFile = join(setup.dir, 'skillbot.yaml');
  await writeFile(configFile, ['mcpServers:', `  notes: ${JSON.stringify(server.settings)}`, `  secret: ${JSON.stringify(server.settings)}`, 'defaults:', '  mcp: [notes]', ''].join('\n'));
  useSlackBot((started) => ({ slack, anthropic, bot } = started), { env: { SKILLBOT_CONFIG: configFile } });

  /** Asks in Alice's DM with a model that reads `input` once, then answers with what it got. */
  async function readThrough(input: { server: string; uri: string }): Promise<string> {
    anthropic.setBrain((req) => {
      const result = lastToolResult(req);
      return result === undefined ? toolUseReply('read_mcp_resource', input) : textReply(`got: ${result.content}`);
    });
    const ts = bot.sender.nextTs();
    await bot.sender.message({ channel: DM, user: ALICE, ts, text: 'read it', channelType: 'im' });
    const answer = await slack.waitFor(() => slack.thread(DM, ts).find((message) => message.stream === 'stopped' && message.text.includes('got:')), { what: 'the answer', timeoutMs: 30_000 });
    return answer.text;
  }

  describe(`read_mcp_resource (${transport})`, () => {
    it('is offered where the world has a server, and reads a text resource without its hidden characters', async () => {
      const text = await readThrough({ server: 'notes', uri: 'notes://team/handbook.md' });
      expect(text).toContain('Resource notes://team/handbook.md (text/markdown):\n# Team handbook\nDeploys happen on Tuesdays.');
      expect(text).not.toMatch(/[\u{E0000}-\u{E007F}]/u);
      const tools = (anthropic.requests.at(-1)!.body?.tools ?? []).map((tool) => tool.name);
      expect(tools).toContain('read_mcp_resource');
    }, 60_000);

    it("saves a binary resource in the chat's workspace and says where", async () => {
      const text = await readThrough({ server: 'notes', uri: 'files://team/logo.png' });
      expect(text).toContain('Resource files://team/logo.png is binary (image/png, 13 bytes): saved as /workspace/logo.png.');
      // The saved file holds the server's bytes.
      const root = bot.app.config.workspace.root;
      const saved = (await readdir(root, { recursive: true })).filter((path) => path.endsWith('logo.png'));
      expect(saved).toHaveLength(1);
      expect([...(await readFile(join(root, saved[0]!)))]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x01, 0x02]);
    }, 60_000);

    it('refuses a server the world does not list, naming only those it does', async () => {
      const text = await readThrough({ server: 'secret', uri: 'notes://team/handbook.md' });
      expect(text).toBe('got: Not read: no MCP server "secret" is offered here (servers here: notes).');
    }, 60_000);
  });
}
