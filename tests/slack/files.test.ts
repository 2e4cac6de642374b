// Files in Slack beyond the platform contract (tests/platforms/contractFiles.ts): how shared files are fetched
// (the bot token, Slack's redirects, the bound checked before any download), on whichever instance runs the turn,
// and the model's own files listed on the approval card.
import { randomUUID } from 'node:crypto';
import { createStore } from '../../src/store/createStore.ts';
import { describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, type RequestMessage, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { FakeSlack } from '../fakes/slack.ts';
import type { SkillsDir } from '../platforms/skills.ts';
import { ALICE, approvalIdOf, approvalIn, CHANNEL, type SlackBot, startSlackBot, useSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: SlackBot;

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const CSV = 'region,sales\nnorth,120\nsouth,80\neast,200\n';

useSlackBot((started) => ({ slack, anthropic, skills, bot } = started), { examples: ['csv-summary'], env: { FILE_MAX_BYTES: '2000' } });

const mention = (text: string) => `<@${slack.info.botUserId}> ${text}`;
type Block = { type: string; text?: string; source?: { media_type?: string; data?: string }; title?: string };
const blocksOf = (message: RequestMessage | undefined): Block[] => (typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : ((message?.content ?? []) as Block[]));

describe('files people share in Slack', () => {
  it("downloads shared files with the bot token, following Slack's redirects, and none over the bound", async () => {
    let seen: Block[] = [];
    let system = '';
    anthropic.setBrain((req) => {
      seen = blocksOf(req.messages.at(-1));
      system = JSON.stringify(req.system);
      return textReply('I read it');
    });
    const pdf = slack.shareFile({ name: 'report.pdf', mimetype: 'application/pdf', bytes: PDF, redirect: true });
    const big = slack.shareFile({ name: 'big.csv', mimetype: 'text/csv', bytes: 'x,y\n'.repeat(600) });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('what does it say?'), files: [pdf, big] });
    await waitForReply(slack, CHANNEL, ts, /^I read it/);

    // Slack's system prompt says where outputs go there (the terminal's says its own folder).
    expect(system).toContain('You are skillbot, an assistant working inside Slack.');
    expect(system).toContain('Files written to /workspace/outputs are posted to the thread');
    expect(seen.find((block) => block.type === 'document')).toMatchObject({ title: 'report.pdf', source: { media_type: 'application/pdf', data: PDF.toString('base64') } });
    // The token went with the request for url_private and with its redirect; the file over the bound was never fetched.
    const downloads = slack.downloads.filter((download) => download.fileId === pdf.id || download.fileId === big.id);
    expect(downloads.map((download) => [download.fileId, download.authorised])).toEqual([
      [pdf.id, true],
      [pdf.id, true],
    ]);
  });

  it.runIf(process.env.REDIS_URL)('a message whose turn runs on another instance has its files fetched there', async () => {
    const url = new URL(process.env.REDIS_URL ?? '');
    url.pathname = '/13';
    const store = await createStore(url.toString());
    const first = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl: url.toString() });
    let second: SlackBot | undefined;
    let firstRunning = true;
    try {
      anthropic.setBrain((req) => textReply(JSON.stringify(req.messages.at(-1)).includes('north,120') ? 'read it elsewhere' : 'no file'));
      const ts = first.sender.nextTs();
      const chatId = `slack:${slack.info.teamId}:${CHANNEL}/${ts}`;
      // The chat is busy elsewhere while the message arrives: the receiving instance only queues it.
      const token = randomUUID();
      expect(await store.claim('leases', `chat:${chatId}`, { status: token, at: Date.now() }, 30_000)).toBe(true);
      const csv = slack.shareFile({ name: 'sales.csv', mimetype: 'text/csv', bytes: CSV });
      await first.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('what is in it?'), files: [csv] });
      await first.stop();
      firstRunning = false;
      await store.release('leases', `chat:${chatId}`, token);

      second = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl: url.toString() });
      second.app.dispatcher.start();
      await waitForReply(slack, CHANNEL, ts, 'read it elsewhere');
      expect(slack.downloads.filter((download) => download.fileId === csv.id && download.authorised)).toHaveLength(1);
    } finally {
      if (firstRunning) await first.stop();
      await second?.stop();
      await store.close();
    }
  });

  it("the model's own text files reach the script beside the person's, listed on the card", async () => {
    anthropic.setBrain((req) => {
      const tool = lastToolResult(req);
      if (!tool) return toolUseReply('run_skill_script', { skill_id: 'csv-summary', script: 'scripts/summarize.py', args: ['pasted.csv'], files: { 'pasted.csv': 'name,score\nann,3\nbob,5\n' } });
      return textReply(tool.content.includes('score: count 2, sum 8') ? 'scores summed' : `unexpected: ${tool.content}`);
    });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('ann 3, bob 5: chart the scores') });
    const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
    expect(JSON.stringify(question.blocks)).toContain('written by Claude for scripts/summarize.py');
    // The person sees what Claude wrote before approving.
    expect(JSON.stringify(question.blocks)).toContain('ann,3');
    await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalIdOf(question) });
    await waitForReply(slack, CHANNEL, ts, 'scores summed');
    expect(slack.uploads.filter((upload) => upload.threadTs === ts).map((upload) => upload.name).sort()).toEqual(['pasted-chart.svg', 'pasted-summary.md']);
  });
});
