// Slack and Discord keep mirrored layouts: a role both platforms have lives under the same file name in each
// (a reader who knows one adapter finds the other's part at once). A file only one platform has must be on the
// list below with its reason; anything else (a shared role under two names, a new file in one folder only) fails.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ADAPTERS = join(import.meta.dirname, '..', '..', 'adapters');

/** Files one platform has and the other does not, each with why. */
const PLATFORM_ONLY: Record<'slack' | 'discord', Record<string, string>> = {
  slack: {
    'answerStream.ts': "Slack streams an answer into one message (chat.startStream); Discord edits its message",
    'appHome.ts': 'the App Home tab is Slack only',
    'homeConnections.ts': "the App Home's MCP accounts",
    'homeRoutines.ts': "the App Home's routines and hooks",
    'homeTasks.ts': "the App Home's MCP tasks",
    'assistantThreads.ts': "Slack's assistant threads (suggested prompts, titles)",
    'boltLogger.ts': "Bolt's logger interface over ours",
    'ids.ts': "Slack's team/channel/ts ids; Discord's ids are in places.ts with the thread directory",
    'liveMessage.ts': "the turn's one message while it streams (Slack's update limits)",
    'manifest.yml': "the Slack app's manifest",
    'manifestNeeds.ts': 'what the manifest must grant (scopes, events), checked against the code',
    'mrkdwn.ts': "Slack's markup; Discord takes Markdown as it is",
    'payloads.ts': "zod schemas of Bolt's payloads; discord.js types its own",
    'skillList.ts': '`/skills` as Block Kit (Discord builds its list in commands.ts)',
    'slackBlock.ts': "Block Kit's block type, a leaf the API wrapper and the cards share (discord.js types its components)",
    'slackText.ts': "escaping for Slack's mrkdwn (&, <, >)",
    'threads.ts': 'which threads the bot started (Slack has no thread objects to ask)',
    'turnControls.ts': "the Stop button and the progress blocks of Slack's turn message",
    'turnMessage.ts': "the turn's message: streamed, then written over with the final text",
  },
  discord: {
    'chatActivity.ts': "who is typing and which chat is busy (Discord's typing indicator)",
    'client.ts': 'the discord.js client (intents, partials, REST base)',
    'commandReplies.ts': "a slash command's deferred reply, answered once",
    'dedupe.ts': 'interactions claimed by id (Slack clicks and commands use core.deliveries)',
    'interactions.ts': "Discord's one interaction event (commands, buttons, menus, autocomplete)",
    'mcpConnect.ts': "the Connect button of an MCP sign-in (Slack sends the link as an ephemeral message)",
    'outlets.ts': 'where a turn writes: an interaction reply or a channel message',
    'places.ts': 'where a message is (channel, bot thread, DM) and the bot threads directory',
    'threadNames.ts': 'names of the threads the bot opens (Slack threads have none)',
    'turnHints.ts': "tells the instance holding a command's reply that the turn ran elsewhere",
  },
};

/** `slackApi.ts` and `discordApi.ts` are one role: the platform's name is not part of it. */
function role(file: string, platform: string): string {
  return file.startsWith(platform) ? file.slice(platform.length).replace(/^./, (first) => first.toLowerCase()) : file;
}

async function roles(platform: 'slack' | 'discord'): Promise<Map<string, string>> {
  const files = (await readdir(join(ADAPTERS, platform), { withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => entry.name);
  return new Map(files.map((file) => [role(file, platform), file]));
}

describe('the Slack and Discord adapters', () => {
  it('name a role both have the same way, and list every file only one has with its reason', async () => {
    const slack = await roles('slack');
    const discord = await roles('discord');
    const unexplained: string[] = [];
    for (const [platform, own, other] of [['slack', slack, discord], ['discord', discord, slack]] as const) {
      for (const [name, file] of own) {
        if (!other.has(name) && PLATFORM_ONLY[platform][file] === undefined) unexplained.push(`adapters/${platform}/${file}`);
      }
    }
    expect(unexplained, 'a file in one adapter only: give it the other adapter\'s name for the same role, or list it in PLATFORM_ONLY with why').toEqual([]);
  });

  it('list no platform-only file that is gone or that the other platform has too', async () => {
    const stale: string[] = [];
    for (const [platform, other] of [['slack', 'discord'], ['discord', 'slack']] as const) {
      const own = await roles(platform);
      const theirs = await roles(other);
      for (const file of Object.keys(PLATFORM_ONLY[platform])) {
        const name = role(file, platform);
        if (!own.has(name) || theirs.has(name)) stale.push(`${platform}: ${file}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
