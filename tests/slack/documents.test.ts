// The document host (docs/skills.md, Dockerfile target `documents`): LibreOffice headless inside the sandbox, through
// Slack. Skills in the public skills' style recalculate an .xlsx formula, render a .pptx to a thumbnail and convert a
// .docx to PDF; each result is delivered to the thread. LibreOffice starts slowly on a cold profile: the timeouts
// are generous, and nothing here times it.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, lastToolResult, startFakeAnthropic, textReply, toolUseReply } from '../fakes/anthropic.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { DECK_THUMBNAIL_SKILL, DOC_PDF_SKILL, formulaXlsx, ONE_PAGE_FODT, ONE_SLIDE_FODP, SHEET_RECALC_SKILL } from '../fixtures/officeSkills.ts';
import { makeSkillsDir, type SkillsDir } from '../platforms/skills.ts';
import { ALICE, approvalIdOf, approvalIn, CHANNEL, type SlackBot, startSlackBot, waitForReply } from './harness.ts';

const run = promisify(execFile);
const SLOW = 300_000;

let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: SkillsDir;
let bot: SlackBot;
let pptx: Buffer;
let docx: Buffer;

beforeAll(async () => {
  slack = await startFakeSlack();
  anthropic = await startFakeAnthropic();
  skills = await makeSkillsDir([SHEET_RECALC_SKILL, DECK_THUMBNAIL_SKILL, DOC_PDF_SKILL]);
  bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, env: { SCRIPT_TIMEOUT_MS: '240000', SCRIPT_CPU_SECONDS: '240' } });
  // The person's deck and memo: made by LibreOffice on the host, as someone's Office export would be.
  const dir = await mkdtemp(join(tmpdir(), 'skillbot-office-'));
  try {
    await writeFile(join(dir, 'q3.fodp'), ONE_SLIDE_FODP);
    await writeFile(join(dir, 'memo.fodt'), ONE_PAGE_FODT);
    const profile = `-env:UserInstallation=file://${join(dir, 'profile')}`;
    await run('soffice', [profile, '--headless', '--convert-to', 'pptx', '--outdir', dir, join(dir, 'q3.fodp')], { timeout: SLOW });
    await run('soffice', [profile, '--headless', '--convert-to', 'docx', '--outdir', dir, join(dir, 'memo.fodt')], { timeout: SLOW });
    pptx = await readFile(join(dir, 'q3.pptx'));
    docx = await readFile(join(dir, 'memo.docx'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, SLOW);
afterAll(async () => {
  await bot?.stop();
  await slack?.close();
  await anthropic?.close();
  await skills?.remove();
});

const mention = (text: string) => `<@${slack.info.botUserId}> ${text}`;

/** Shares `file` with a request, runs `script` on it once approved, and returns the tool result and the thread's uploads. */
async function runOnShared(file: { name: string; mimetype: string; bytes: Buffer }, skill: string, script: string): Promise<{ result: string; uploads: Array<{ name: string; bytes: Buffer }> }> {
  let result = '';
  anthropic.setBrain((req) => {
    const tool = lastToolResult(req);
    if (!tool) return toolUseReply('run_skill_script', { skill_id: skill, script, args: [file.name] });
    result = tool.content;
    return textReply(`done with ${file.name}`);
  });
  const shared = slack.shareFile(file);
  const ts = bot.sender.nextTs();
  await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mention(`please process ${file.name}`), files: [shared] });
  const question = await slack.waitFor(() => approvalIn(slack, CHANNEL, ts), { what: 'the approval question' });
  await bot.sender.click({ user: ALICE, channel: CHANNEL, messageTs: question.ts, threadTs: ts, actionId: 'hitl_yes_once', value: approvalIdOf(question) });
  await slack.waitFor(() => result !== '' || undefined, { what: 'the script result', timeoutMs: SLOW });
  await waitForReply(slack, CHANNEL, ts, new RegExp(`^done with ${file.name.replace('.', '\\.')}`));
  const uploads = slack.uploads.filter((upload) => upload.threadTs === ts).map((upload) => ({ name: upload.name, bytes: Buffer.from(upload.bytes) }));
  return { result, uploads };
}

describe('document skills on the documents host, through Slack', () => {
  it('recalculates an .xlsx formula with LibreOffice headless in the sandbox and delivers the workbook', async () => {
    const { result, uploads } = await runOnShared(
      { name: 'sales.xlsx', mimetype: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', bytes: formulaXlsx() },
      'sheet-recalc',
      'scripts/recalc.py',
    );
    expect(result).toContain('"Sales!A3": {"formula": "=SUM(A1:A2)*2", "value": 400}');
    expect(uploads.map((upload) => upload.name)).toEqual(['sales.xlsx']);
    expect(uploads[0]!.bytes.subarray(0, 2).toString()).toBe('PK');
  }, SLOW);

  it('renders a .pptx to a thumbnail image and delivers it', async () => {
    const { result, uploads } = await runOnShared(
      { name: 'q3.pptx', mimetype: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', bytes: pptx },
      'deck-thumbnail',
      'scripts/thumbnail.py',
    );
    expect(result).toContain('thumbnail: outputs/q3-thumbnail.png');
    expect(uploads.map((upload) => upload.name)).toEqual(['q3-thumbnail.png']);
    expect(uploads[0]!.bytes.subarray(1, 4).toString()).toBe('PNG');
  }, SLOW);

  it('converts a .docx to PDF and delivers it', async () => {
    const { result, uploads } = await runOnShared(
      { name: 'memo.docx', mimetype: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: docx },
      'doc-pdf',
      'scripts/to_pdf.py',
    );
    expect(result).toContain('pdf: outputs/memo.pdf');
    expect(uploads.map((upload) => upload.name)).toEqual(['memo.pdf']);
    expect(uploads[0]!.bytes.subarray(0, 5).toString()).toBe('%PDF-');
  }, SLOW);
});
