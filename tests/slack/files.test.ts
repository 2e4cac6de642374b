// Files in and out of Slack: shared files reach the model (downloaded with the token, through redirects), bounds
// are told, and a skill script reads the turn's files and its output lands in the thread.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createStore } from '../../src/store/createStore.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, type RequestMessage, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { ALICE, approvalIdOf, approvalIn, CHANNEL, makeSkillsDir, type SlackBot, startSlackBot, waitForReply } from './harness.ts';

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: Awaited<ReturnType<typeof makeSkillsDir>>;
let bot: SlackBot;
const extraBots: SlackBot[] = [];

/** The test skills, then the example skills that ship with skillbot (csv-summary among them). */
const skillsDirs = () => `${skills.skillsRoot}:${join(process.cwd(), 'skills')}`;

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const CSV = 'region,sales\nnorth,120\nsouth,80\neast,200\n';

beforeAll(async () => {
  slack = await startFakeSlack();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir();
  bot = await startSlackBot({ slack, anthropic, skillsRoot: skillsDirs() });
});
afterEach(async () => {
  await Promise.all(extraBots.splice(0).map((extra) => extra.stop()));
});
afterAll(async () => {
  await bot.stop();
  await slack.close();
  await anthropic.close();
  await skills.remove();
});

const mention = (text: string) => `<@${slack.info.botUserId}> ${text}`;
type Block = { type: string; text?: string; source?: { media_type?: string; data?: string }; title?: string };
const blocksOf = (message: RequestMessage | undefined): Block[] => (typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : ((message?.content ?? []) as Block[]));

describe('files people share in Slack', () => {
  it('an image, a PDF and a CSV reach the model as image, document and text, downloaded with the bot token', async () => {
    let seen: Block[] = [];
    anthropic.setBrain((req) => {
      seen = blocksOf(req.messages.at(-1));
      return textReply('I read them');
    });
    const files = [
      slack.shareFile({ name: 'screen.png', mimetype: 'image/png', bytes: PNG }),
      slack.shareFile({ name: 'report.pdf', mimetype: 'application/pdf', bytes: PDF, redirect: true }),
      slack.shareFile({ name: 'sales.csv', mimetype: 'text/csv', bytes: CSV }),
    ];
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('what do these say?'), files });
    await waitForReply(slack, CHANNEL, ts, 'I read them');

    expect(seen.find((block) => block.type === 'image')?.source).toEqual({ type: 'base64', media_type: 'image/png', data: PNG.toString('base64') });
    expect(seen.find((block) => block.type === 'document')).toMatchObject({ title: 'report.pdf', source: { media_type: 'application/pdf', data: PDF.toString('base64') } });
    expect(seen.find((block) => block.type === 'text' && block.text?.includes('north,120'))?.text).toContain('sales.csv');
    expect(seen.at(-1)).toMatchObject({ type: 'text', text: 'what do these say?' });
    // The token went with every request for url_private; the PDF came through its redirect.
    const ids = files.map((file) => file.id as string);
    const downloads = slack.downloads.filter((download) => ids.includes(download.fileId));
    expect(downloads.filter((download) => download.authorised).map((download) => download.fileId).sort()).toEqual([...ids, ids[1]].sort());

    // The history keeps a note for the image, not its bytes: the next turn still works.
    anthropic.setBrain((req) => textReply(JSON.stringify(req.messages).includes(PNG.toString('base64')) ? 'bytes kept' : 'note kept'));
    await bot.sender.message({ channel: CHANNEL, user: ALICE, threadTs: ts, text: 'thanks' });
    await waitForReply(slack, CHANNEL, ts, 'note kept');
  });

  it('a file over the size bound is not read, and the person is told which and why', async () => {
    const small = await startSlackBot({ slack, anthropic, skillsRoot: skillsDirs(), env: { FILE_MAX_BYTES: '100' } });
    extraBots.push(small);
    let seen: Block[] = [];
    anthropic.setBrain((req) => {
      seen = blocksOf(req.messages.at(-1));
      return textReply('answered');
    });
    const big = slack.shareFile({ name: 'big.csv', mimetype: 'text/csv', bytes: 'x,y\n'.repeat(100) });
    const ts = small.sender.nextTs();
    await small.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('sum this'), files: [big] });
    const reply = await waitForReply(slack, CHANNEL, ts, /^answered/);
    expect(reply.text).toContain('I did not read big.csv: it is 400 B, over the 100 B limit');
    expect(seen.some((block) => block.text?.includes('File not read: big.csv'))).toBe(true);
    expect(slack.downloads.some((download) => download.fileId === big.id)).toBe(false);
  });

  it('the csv-summary skill reads the shared CSV and its summary and chart land in the thread', async () => {
    let result = '';
    anthropic.setBrain((req) => {
      const tool = lastToolResult(req);
      if (!tool) return toolUseReply('run_skill_script', { skill_id: 'csv-summary', script: 'scripts/summarize.py' });
      result = tool.content;
      return textReply('Sales total 400; the chart is in the thread.');
    });
    const csv = slack.shareFile({ name: 'sales.csv', mimetype: 'text/csv', bytes: CSV });
    const ts = bot.sender.nextTs();
    await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('summarise this and chart it'), files: [csv] });
    const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
    // What the person approves includes what the script will read.
    expect(JSON.stringify(question.blocks)).toMatch(/file \\"sales\.csv\\" \\"[\d.]+ B\\" \\"sent in this message\\"/);
    await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalIdOf(question) });
    await waitForReply(slack, CHANNEL, ts, 'Sales total 400; the chart is in the thread.');

    const uploads = slack.uploads.filter((upload) => upload.threadTs === ts);
    expect(uploads.map((upload) => upload.name).sort()).toEqual(['sales-chart.svg', 'sales-summary.md']);
    expect(uploads[0]?.title).toContain('csv-summary');
    expect(uploads.find((upload) => upload.name === 'sales-summary.md')?.bytes.toString()).toContain('| sales | 3 | 400 | 133.33 | 80 | 200 |');
    expect(uploads.find((upload) => upload.name === 'sales-chart.svg')?.bytes.toString()).toContain('<svg');
    expect(result).toContain('Delivered to the chat: sales-chart.svg');
    expect(result).toContain('sales: count 3, sum 400');
  });

  it('an output file over the bound is reported to the model, not uploaded and not dropped silently', async () => {
    const bounded = await startSlackBot({ slack, anthropic, skillsRoot: skillsDirs(), env: { OUTPUT_FILE_MAX_BYTES: '500' } });
    extraBots.push(bounded);
    let result = '';
    anthropic.setBrain((req) => {
      const tool = lastToolResult(req);
      if (!tool) return toolUseReply('run_skill_script', { skill_id: 'csv-summary', script: 'scripts/summarize.py' });
      result = tool.content;
      return textReply('done with bounds');
    });
    const csv = slack.shareFile({ name: 'sales.csv', mimetype: 'text/csv', bytes: CSV });
    const ts = bounded.sender.nextTs();
    await bounded.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention('chart this'), files: [csv] });
    const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
    await bounded.sender.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalIdOf(question) });
    // The notice lands under the answer when the turn finishes, which can be after the answer's text shows.
    await waitForReply(slack, CHANNEL, ts, /^done with bounds[\s\S]*Not delivered: sales-chart\.svg is [\d.]+ K?B, over the 500 B limit/);
    expect(slack.uploads.filter((upload) => upload.threadTs === ts).map((upload) => upload.name)).toEqual(['sales-summary.md']);
    expect(result).toMatch(/Not delivered: sales-chart\.svg is [\d.]+ K?B, over the 500 B limit\./);
    expect(result).toContain('Delivered to the chat: sales-summary.md');
  });

  it.runIf(process.env.REDIS_URL)('a message whose turn runs on another instance has its files fetched there', async () => {
    const url = new URL(process.env.REDIS_URL ?? '');
    url.pathname = '/13';
    const store = await createStore(url.toString());
    const first = await startSlackBot({ slack, anthropic, skillsRoot: skillsDirs(), storeUrl: url.toString() });
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

      second = await startSlackBot({ slack, anthropic, skillsRoot: skillsDirs(), storeUrl: url.toString() });
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
