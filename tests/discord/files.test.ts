// Discord attachments reach the model and skill scripts; what a script makes is posted in the thread as files.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeDiscord, type FakeUser, startFakeDiscord } from '../fakes/discord.ts';
import { approvalIn, botMessages, buttonIds, type DiscordBot, makeSkillsDir, startDiscordBot, threadOn, waitForBotMessage } from './harness.ts';

let discord: FakeDiscord;
let anthropic: FakeAnthropic;
let skills: Awaited<ReturnType<typeof makeSkillsDir>>;
let bot: DiscordBot;
let alice: FakeUser;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const CSV = 'region,sales\nnorth,120\nsouth,80\neast,200\n';

beforeAll(async () => {
  discord = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  alice = discord.addUser('alice');
  bot = await startDiscordBot({ discord, anthropic, skillsRoot: `${skills.skillsRoot}:${join(process.cwd(), 'skills')}` });
});
afterAll(async () => {
  await bot?.stop();
  await discord?.close();
  await anthropic?.close();
  await skills?.remove();
});

type Block = { type: string; text?: string; source?: { media_type?: string; data?: string } };

describe('Discord attachments', () => {
  it('an image and a CSV reach the model; the csv-summary output is posted as files in the thread', async () => {
    let seen: Block[] = [];
    let result = '';
    anthropic.setBrain((req) => {
      const tool = lastToolResult(req);
      if (!tool) {
        seen = req.messages.at(-1)?.content as Block[];
        return toolUseReply('run_skill_script', { skill_id: 'csv-summary', script: 'scripts/summarize.py', args: ['sales.csv'] });
      }
      result = tool.content;
      return textReply('Total sales 400.');
    });
    const mention = discord.say(alice, discord.general, `<@${discord.bot.id}> summarise the sales`, [
      { name: 'shot.png', contentType: 'image/png', bytes: PNG },
      { name: 'sales.csv', contentType: 'text/csv', bytes: CSV },
    ]);
    const thread = await discord.waitFor(() => threadOn(discord, mention.id), 'the thread');
    const question = await discord.waitFor(() => approvalIn(discord, thread.id), 'the approval question');
    expect(question.content).toContain('sales.csv');
    const approve = buttonIds(question).find((id) => id.endsWith(':yes_once')) ?? '';
    discord.click(alice, question, approve);
    await waitForBotMessage(discord, thread.id, 'Total sales 400.');

    expect(seen.find((block) => block.type === 'image')?.source).toMatchObject({ media_type: 'image/png', data: PNG.toString('base64') });
    expect(seen.some((block) => block.type === 'text' && block.text?.includes('north,120'))).toBe(true);
    const files = botMessages(discord, thread.id).flatMap((message) => message.attachments);
    expect(files.map((file) => file.filename).sort()).toEqual(['sales-chart.svg', 'sales-summary.md']);
    expect(files.find((file) => file.filename === 'sales-summary.md')?.bytes.toString()).toContain('| sales | 3 | 400 |');
    expect(botMessages(discord, thread.id).some((message) => message.content.includes('made by the csv-summary skill'))).toBe(true);
    expect(result).toContain('Delivered to the chat: sales-summary.md');
  });
});
