// What bench/tryPublicSkills.ts drives: fetched public repositories served from the loopback git server the tests
// use, a bot on the Slack fake and a scripted fake Claude, and the moves a person makes in a thread (a mention, a
// shared file, "Yes, once" on every card, a pick on a collection's card). Prints what happened; not a test.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slackLauncher } from '../../adapters/slack/index.ts';
import { type BrainReply, lastToolResult, roundOf, startFakeAnthropic, textReply } from '../../tests/fakes/anthropic.ts';
import { startFakeGitServer } from '../../tests/fakes/gitServer.ts';
import { type PostedMessage, SlackSender, startFakeSlack } from '../../tests/fakes/slack.ts';
import { createTestApp } from '../../tests/platforms/app.ts';

export const CHANNEL = 'C0GENERAL';
export const ALICE = 'UALICE';
export const BOB = 'UBOB';
export const say = (line: string) => console.log(line);
/** Debian's, with its reportlab (a python3 earlier on PATH, pyenv's say, may have neither): the sandbox runs it too. */
export const PYTHON = '/usr/bin/python3';

type Step = BrainReply | ((results: string[]) => BrainReply);
const bodyOf = (card: PostedMessage) => (card.blocks as Array<{ text?: { text?: string } }> | undefined)?.[1]?.text?.text ?? '';
const idOf = (card: PostedMessage) => /"block_id":"hitl:([^"]+)"/.exec(JSON.stringify(card.blocks))?.[1] ?? '';

/** `repos`: owner/name → a clone or bare repository on this machine, served as github:owner/name. */
export async function startTry(repos: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'skillbot-try-'));
  chmodSync(dir, 0o755);
  const git = await startFakeGitServer();
  for (const [name, path] of Object.entries(repos)) execFileSync('git', ['clone', '-q', path, join(git.root, ...name.split('/'))]);
  const slack = await startFakeSlack();
  const anthropic = await startFakeAnthropic();
  const world = `slack:${slack.info.teamId}:${CHANNEL}`;
  mkdirSync(join(dir, 'skills'));
  writeFileSync(join(dir, 'config.yaml'), `worlds:\n  ${world}:\n    installers: [${BOB}]\n`);
  const { app, http } = await createTestApp(
    { anthropic, skillsRoot: join(dir, 'skills'), env: { SKILLBOT_CONFIG: join(dir, 'config.yaml'), INSTALL_GITHUB_URL: git.url, INSTALLED_SKILLS_DIR: join(dir, 'installed'), SCRIPT_TIMEOUT_MS: '120000' } },
    { SLACK_BOT_TOKEN: slack.info.botToken, SLACK_SIGNING_SECRET: 'try-signing-secret-0123456789', SLACK_API_URL: slack.apiUrl },
  );
  const running = await slackLauncher.start(app.core, http);
  app.dispatcher.start();
  const port = await http.listen(0, '127.0.0.1');
  const sender = new SlackSender(`http://127.0.0.1:${port}/slack/events`, 'try-signing-secret-0123456789', slack.info);
  const clicked = new Set<string>();
  const cardsIn = (ts: string) => slack.thread(CHANNEL, ts).filter((m) => JSON.stringify(m.blocks ?? []).includes('"hitl_'));

  /** The whole text of a card: the attached approval file when the card is long, else its body. */
  const cardText = (card: PostedMessage) => slack.uploads.find((u) => u.name === `approval-${idOf(card)}.txt`)?.bytes.toString('utf8') ?? bodyOf(card).replace(/^```|```$/g, '');

  /** Clicks "Yes, once" as `user` on every new card of the thread until `done` finds something. */
  async function approveUntil<T>(ts: string, user: string, done: () => T | undefined, ms = 180_000): Promise<T> {
    const started = Date.now();
    for (;;) {
      const found = done();
      if (found !== undefined) return found;
      for (const card of cardsIn(ts)) {
        const id = idOf(card);
        if (id === '' || clicked.has(id)) continue;
        clicked.add(id);
        const body = /```([\s\S]*?)```/.exec(bodyOf(card))?.[1] ?? '';
        say(`  card: ${card.text.replace('Approval needed: ', '')}${body ? `\n    ${body.split('\n').slice(0, 6).join('\n    ')}` : ''}`);
        await sender.click({ user, channel: CHANNEL, messageTs: card.ts, threadTs: card.threadTs ?? ts, actionId: 'hitl_yes_once', value: id });
      }
      if (Date.now() - started > ms) throw new Error(`timed out in thread ${ts}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A person's message mentioning the bot, seeded so the thread's context has it (as Slack's would). */
  async function mention(text: string, options: { threadTs?: string; files?: Array<Record<string, unknown>> } = {}): Promise<string> {
    const ts = slack.nextTs();
    const words = `<@${slack.info.botUserId}> ${text}`;
    slack.seed({ channel: CHANNEL, ts, user: ALICE, text: words, ...(options.threadTs ? { threadTs: options.threadTs } : {}) });
    await sender.mention({ channel: CHANNEL, user: ALICE, ts, text: words, ...(options.threadTs ? { threadTs: options.threadTs } : {}), ...(options.files ? { files: options.files } : {}) });
    return ts;
  }

  /** Waits for the first card in the thread posted after `after` (a ts), and prints its whole text to `saveTo`. */
  async function nextCard(threadTs: string, after: string, saveTo?: string): Promise<{ card: PostedMessage; text: string }> {
    const card = await slack.waitFor(() => cardsIn(threadTs).find((m) => m.ts > after && !clicked.has(idOf(m))), { what: 'a review card', timeoutMs: 180_000 });
    const text = cardText(card);
    if (saveTo) writeFileSync(saveTo, text);
    return { card, text };
  }

  /** Summarises an install card: its pick line, scanner line, scripts and missing host dependencies. */
  function sayCard(label: string, text: string) {
    const line = (start: string) => text.split('\n').find((l) => l.trimStart().startsWith(start))?.trim() ?? '?';
    say(`[${label}] card: ${line('Picked')}; ${line('Scanner:')}`);
    const missing = /host dependencies missing:([^]*?)\n\n/.exec(text)?.[1]?.replace(/\s+/g, ' ').trim();
    if (missing) say(`  host dependencies missing: ${missing.slice(0, 900)}`);
  }

  const installed = (ts: string, id: string, after: string) => () =>
    slack.thread(CHANNEL, ts).find((m) => m.ts > after && (m.text.startsWith(`Installed ${id}`) || m.text.startsWith('Not installed') || m.text.startsWith('Cannot install')));

  /**
   * A turn by Alice in `threadTs` (a new thread when undefined) driven by `steps`, one per tool round, the last a
   * reply starting "DONE"; every tool result the model reads is printed. Resolves once that reply is in.
   */
  async function turn(label: string, words: string, steps: Step[], options: { threadTs?: string; files?: Array<Record<string, unknown>> } = {}) {
    const results: string[] = [];
    anthropic.setBrain((req) => {
      const round = roundOf(req);
      const result = lastToolResult(req);
      if (result !== undefined && round > 0) {
        results.push(result.content);
        say(`  [${label} round ${round}] ${result.isError ? 'ERROR ' : ''}${result.content.replace(/\s+/g, ' ').slice(0, 700)}`);
      }
      const step = steps[round];
      if (step === undefined) return textReply('(done)');
      return typeof step === 'function' ? step(results) : step;
    });
    const ts = await mention(words, options);
    const threadTs = options.threadTs ?? ts;
    // The scripted model ends each turn with a reply starting "DONE" (or says "(done)" past its last step).
    await approveUntil(threadTs, ALICE, () => slack.thread(CHANNEL, threadTs).find((m) => m.ts > ts && (m.text.startsWith('DONE') || m.text.includes('(done)'))));
    return { threadTs, results };
  }

  async function close() {
    await app.dispatcher.stop(1000);
    await running.stop();
    await http.close();
    await app.close();
    await slack.close();
    await anthropic.close();
    await git.close();
    rmSync(dir, { recursive: true, force: true });
  }

  return { dir, git, slack, anthropic, app, sender, world, clicked, cardsIn, cardText, approveUntil, mention, nextCard, sayCard, installed, turn, close };
}

export type Try = Awaited<ReturnType<typeof startTry>>;
