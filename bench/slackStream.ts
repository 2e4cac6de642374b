// npm run bench:stream — how soon a Slack reader sees the answer the model is writing. The Anthropic fake
// streams 20 text deltas 100 ms apart; the real Slack adapter (Bolt over HTTP) answers into the Slack fake.
// Printed: first delta → first visible text, and last delta → complete answer visible (p50 over several turns),
// for a workspace that streams (chat.startStream/appendStream/stopStream) and one that refuses it (edits).
// Targets (streaming): both p50 ≤ 100 ms.
import { cpus, loadavg } from 'node:os';
import { type FakeAnthropic, startFakeAnthropic, textReply } from '../tests/fakes/anthropic.ts';
import { type FakeSlack, type PostedMessage, startFakeSlack } from '../tests/fakes/slack.ts';
import { ALICE, CHANNEL, makeSkillsDir, startSlackBot } from '../tests/slack/harness.ts';

const DELTAS = 20;
const DELTA_MS = 100;
const TURNS = Number(process.env.BENCH_TURNS ?? 5);
// 12 characters per delta is how the fake splits text: 20 deltas.
const ANSWER = Array.from({ length: DELTAS }, (_, i) => `word${String(i).padStart(2, '0')}abcd `.slice(0, 11) + '.').join('');

interface DeltaTimes {
  first?: number;
  last?: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** When the reader first saw any of the answer, and when they saw all of it, in the message that holds it. */
function visibility(message: PostedMessage, answer: string): { first: number; complete: number } {
  const versions = [...message.edits.map((edit) => ({ text: edit.text, at: edit.at })), { text: message.text, at: message.updatedAt ?? message.postedAt }];
  const first = versions.find((version) => answer.startsWith(version.text.replace(/ …$/, '').trim()) && version.text.replace(/ …$/, '').trim() !== '' && !version.text.startsWith('_'));
  const complete = versions.find((version) => version.text === answer);
  return { first: first?.at ?? Number.NaN, complete: complete?.at ?? Number.NaN };
}

async function run(refuse: boolean): Promise<{ first: number[]; complete: number[] }> {
  let times: DeltaTimes = {};
  const anthropic: FakeAnthropic = await startFakeAnthropic({
    chunkDelayMs: DELTA_MS,
    brain: () => textReply(ANSWER),
    onEvent: (event, at) => {
      const delta = (event.data as { delta?: { type?: string } }).delta;
      if (event.event !== 'content_block_delta' || delta?.type !== 'text_delta') return;
      times.first ??= at;
      times.last = at;
    },
  });
  const slack: FakeSlack = await startFakeSlack(refuse ? { refuseStreaming: 'feature_not_enabled' } : {});
  const skills = await makeSkillsDir();
  const bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot });
  const first: number[] = [];
  const complete: number[] = [];
  try {
    for (let turn = 0; turn < TURNS; turn += 1) {
      times = {};
      const ts = bot.sender.nextTs();
      await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> write it (${turn})` });
      const holder = await slack.waitFor(
        () => slack.thread(CHANNEL, ts).find((message) => message.text === ANSWER && (message.stream === undefined || message.stream === 'stopped')),
        { what: 'the complete answer', timeoutMs: 30_000 },
      );
      const seen = visibility(holder, ANSWER);
      first.push(seen.first - (times.first ?? Number.NaN));
      complete.push(seen.complete - (times.last ?? Number.NaN));
    }
  } finally {
    await bot.stop();
    await slack.close();
    await anthropic.close();
    await skills.remove();
  }
  return { first, complete };
}

console.log(`slack stream bench: ${DELTAS} deltas ${DELTA_MS} ms apart, ${TURNS} turns each (${cpus().length} CPUs, load ${loadavg().map((v) => v.toFixed(1)).join(' ')}, Node ${process.version})`);
for (const refuse of [false, true]) {
  const { first, complete } = await run(refuse);
  const label = refuse ? 'edits (streaming refused)' : 'streaming';
  const show = (values: number[]) => `p50 ${percentile(values, 50).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`;
  console.log(`${label.padEnd(26)} first delta → first visible text: ${show(first)}; last delta → complete answer visible: ${show(complete)}${refuse ? '' : ' (targets ≤ 100 ms)'}`);
}
