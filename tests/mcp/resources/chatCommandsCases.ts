// `/mcp attach` and `/mcp prompt` as the core answers them (what every platform then shares or runs): against our
// own server on the current SDK, over stdio in the sandbox or Streamable HTTP (chatCommands.test.ts,
// chatCommandsHttp.test.ts run these same cases). The platforms' own wiring is tested beside their adapters.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMcpChatCommand } from '../../../src/mcp/chatCommands.ts';
import type { McpScope } from '../../../src/mcp/mcpTools.ts';
import { makeSkillsDir } from '../../platforms/skills.ts';
import { ALICE, type SlackBot, useSlackBot } from '../../slack/harness.ts';
import { type OurServer, startOurServer, type Transport } from '../fixtures/ourServers.ts';

/** The cases, against the resourceServer fixture reached over `transport`. */
export async function chatCommandsCases(transport: Transport): Promise<void> {
  let bot: SlackBot;
  const setup = await makeSkillsDir([]);
  const server: OurServer = await startOurServer('resourceServer', transport);
  afterAll(async () => {
    await setup.remove();
    await server.close();
  });
  const configFile = join(setup.dir, 'skillbot.yaml');
  await writeFile(configFile, ['mcpServers:', `  notes: ${JSON.stringify(server.settings)}`, 'defaults:', '  mcp: [notes]', ''].join('\n'));
  useSlackBot((started) => ({ bot } = started), { env: { SKILLBOT_CONFIG: configFile } });

  const scope: McpScope = { worldId: 'slack:T1:C1', requesterId: ALICE, mcp: ['notes'], network: [], egressAllow: [] };
  const run = (text: string) => runMcpChatCommand(bot.app.mcp!.tools, scope, text);

  describe(`/mcp attach and /mcp prompt in the core (${transport})`, () => {
    it('attach gives the resource as a file named after its URI (text without hidden characters, binary as sent)', async () => {
      const text = await run('/mcp attach notes notes://team/handbook.md');
      expect(text).toMatchObject({ kind: 'file', name: 'handbook.md', mimeType: 'text/markdown', note: 'notes://team/handbook.md from notes' });
      expect(Buffer.from((text as { bytes: Uint8Array }).bytes).toString('utf8')).toBe('# Team handbook\nDeploys happen on Tuesdays.\n');
      const binary = await run('/mcp attach notes files://team/logo.png');
      expect(binary).toMatchObject({ kind: 'file', name: 'logo.png', mimeType: 'image/png' });
      expect((binary as { bytes: Uint8Array }).bytes.byteLength).toBe(13);
    }, 60_000);

    it("prompt gives the prompt's messages as the turn's words, naming the prompt", async () => {
      expect(await run('/mcp prompt notes standup team="web platform"')).toEqual({
        kind: 'turn',
        text: "(the prompt standup of the MCP server notes)\n\nSummarise yesterday's work of the web platform team in three bullet points.",
      });
    }, 60_000);

    it('says what is wrong in one line: a missing argument, an unknown prompt, a server not offered, bad usage', async () => {
      expect(await run('/mcp prompt notes standup')).toEqual({ kind: 'reply', text: 'Not run: the prompt notes/standup needs team=….' });
      expect(await run('/mcp prompt notes retro')).toEqual({ kind: 'reply', text: 'Not run: the MCP server notes has no prompt "retro" (prompts: standup).' });
      expect(await run('/mcp attach linear notes://x')).toEqual({ kind: 'reply', text: 'Not done: no MCP server "linear" is offered here (servers here: notes).' });
      expect(await run('/mcp prompt notes standup team')).toMatchObject({ kind: 'reply', text: expect.stringContaining('is not NAME=VALUE') });
      expect(await run('/mcp list')).toMatchObject({ kind: 'reply', text: expect.stringContaining('Usage: `/mcp attach SERVER URI`') });
    }, 60_000);
  });
}
