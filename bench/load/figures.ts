// The run's figures and the pass criteria of issue 8, computed from what was sent and what Slack ended up showing.
import type { SentMessage } from './chatRun.ts';
import type { HeapLife } from './heap.ts';
import type { Life } from './instances.ts';
import type { LogSummary } from './logScan.ts';
import type { MemorySample } from './memory.ts';
import type { ThreadState } from './replies.ts';
import type { StoreLeftovers } from './storeCheck.ts';
import type { Question } from './slackWatch.ts';

export interface Check {
  label: string;
  value: string;
  pass: boolean;
}

export interface MemoryLife {
  label: string;
  samples: number;
  firstMiB: number;
  maxMiB: number;
  lastMiB: number;
  /** Last-third average over first-third average. */
  growth: number;
  /** Undefined when the life was too short to judge. */
  flat: boolean | undefined;
}

/** Samples of a life's first seconds are start-up, not steady state. */
const WARM_UP_MS = 5_000;
const MIN_SAMPLES = 10;
const FLAT_WITHIN = 0.2;

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const mib = (bytes: number) => bytes / 1024 / 1024;
const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

export function memoryByLife(samples: MemorySample[], lives: Life[]): MemoryLife[] {
  return lives.map((life) => {
    const start = (life.healthyAt ?? life.startedAt) + WARM_UP_MS;
    const ofLife = samples.filter((sample) => sample.instance === life.instance && sample.life === life.n);
    // Only samples taken while the instance was answering: memory under load, not after the traffic stopped.
    const mine = ofLife
      .filter((sample, index) => sample.at >= start && index > 0 && sample.turns > (ofLife[index - 1]?.turns ?? 0))
      .map((sample) => sample.rssBytes);
    const third = Math.floor(mine.length / 3);
    const growth = third > 0 ? average(mine.slice(-third)) / average(mine.slice(0, third)) : 1;
    return {
      label: `${life.instance}#${life.n}`,
      samples: mine.length,
      firstMiB: mib(mine[0] ?? 0),
      maxMiB: mib(Math.max(0, ...mine)),
      lastMiB: mib(mine.at(-1) ?? 0),
      growth,
      flat: mine.length >= MIN_SAMPLES ? growth <= 1 + FLAT_WITHIN : undefined,
    };
  });
}

export interface RunFacts {
  sent: SentMessage[];
  threads: ThreadState;
  questions: Question[];
  lives: Life[];
  logs: LogSummary;
  leftovers: StoreLeftovers;
  memory: MemoryLife[];
  /** Heap after GC per life, when the run sampled it. */
  heap?: HeapLife[];
}

/** Script messages that asked again although an earlier one of their chat had run the script (so a grant existed). */
function grantFigures(sent: SentMessage[]): { used: number; lost: number; notRun: number } {
  let used = 0;
  let lost = 0;
  let notRun = 0;
  const granted = new Set<number>();
  for (const message of [...sent].sort((a, b) => a.chat - b.chat || a.n - b.n)) {
    if (!message.script || message.finalAt === undefined) continue;
    if (message.scriptResult !== 'ran') notRun += 1;
    if (message.questions.length === 0 && message.scriptResult === 'ran') used += 1;
    if (message.questions.length > 0 && granted.has(message.chat)) lost += 1;
    if (message.scriptResult === 'ran') granted.add(message.chat);
  }
  return { used, lost, notRun };
}

const signed = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;

export function computeChecks(facts: RunFacts): Check[] {
  const { sent, threads, questions, lives, logs, leftovers, memory } = facts;
  const counts = sent.map((message) => threads.finals.get(message.marker) ?? 0);
  const exactlyOne = counts.filter((count) => count === 1).length;
  const none = counts.filter((count) => count === 0).length;
  const several = counts.filter((count) => count > 1).length;
  const resolved = questions.filter((question) => question.resolvedAt !== undefined).length;
  const grants = grantFigures(sent);
  const crashes = lives.filter((life) => life.exit !== undefined && life.exit.requested === undefined);
  const uncleanStops = lives.filter((life) => life.exit?.requested === 'stop' && life.exit.code !== 0);
  const judged = memory.filter((life) => life.flat !== undefined);
  const heapJudged = facts.heap?.filter((life) => life.flat !== undefined);
  const check = (label: string, value: number | string, pass: boolean): Check => ({ label, value: String(value), pass });
  return [
    check('messages sent', sent.length, sent.length > 0),
    check('messages with exactly one final reply', exactlyOne, exactlyOne === sent.length),
    check('messages with no final reply', none, none === 0),
    check('messages with more than one final reply', several, several === 0),
    check('duplicate posts (same text twice in a thread)', threads.duplicatePosts, threads.duplicatePosts === 0),
    check(
      'texts held by more than one message, deleted ones included (answers and the sentences before tool calls)',
      threads.postedTwice === 0 ? 0 : `${threads.postedTwice} (${threads.postedTwiceExamples.join('; ')})`,
      threads.postedTwice === 0,
    ),
    check(
      'messages answered in more than one post, deleted ones included',
      threads.morePosts === 0 ? 0 : `${threads.morePosts} (${threads.morePostsExamples.join('; ')})`,
      threads.morePosts === 0,
    ),
    check('messages holding a text that were deleted', threads.deletedTexts, threads.deletedTexts === 0),
    check('bot messages posted then deleted (placeholders included)', threads.deletedMessages, threads.deletedMessages === 0),
    check('bot messages left showing a placeholder, preview or Stop button', threads.leftOver === 0 ? 0 : `${threads.leftOver} (${threads.leftOverExamples.join('; ')})`, threads.leftOver === 0),
    check('approvals asked', questions.length, questions.length > 0),
    check('approvals resolved', resolved, resolved === questions.length),
    check('approvals lost (asked, never resolved)', questions.length - resolved, resolved === questions.length),
    check('approvals pending in the store at the end', `${leftovers.pendingApprovals} (never shown: ${leftovers.pendingNeverShown})`, leftovers.pendingApprovals === 0),
    check('grants used (script ran without a new question)', grants.used, grants.used > 0),
    check('grants lost (asked again despite a grant)', grants.lost, grants.lost === 0),
    check('approved scripts that did not run', grants.notRun, grants.notRun === 0),
    check('messages left in the inbox at the end', leftovers.inboxItems, leftovers.inboxItems === 0),
    check('unhandled rejections/exceptions in logs', logs.unhandled.length, logs.unhandled.length === 0),
    check('crashes (exits we did not cause)', crashes.length, crashes.length === 0),
    check('unclean shutdowns on SIGTERM', uncleanStops.length, uncleanStops.length === 0),
    // RSS read while answering is mostly garbage awaiting a collection (a 50,000-turn soak saw it 25% higher in
    // the last third while the heap after GC fell 8%): where the heap is read after a forced GC, that is judged,
    // and the RSS under load stays a printed figure (the Memory section).
    ...(heapJudged === undefined
      ? [
          check(
            'memory flat (last third within 20% of first third)',
            judged.map((life) => `${life.label} ${((life.growth - 1) * 100).toFixed(1)}%`).join(', ') || 'no life long enough',
            judged.length > 0 && judged.every((life) => life.flat === true),
          ),
        ]
      : [
          check(
            'heap after GC within 10% and RSS within 20% of their values after warm-up, at the end of each life',
            heapJudged.map((life) => `${life.label} heap ${signed(life.heapGrowth)} RSS ${signed(life.rssGrowth)}`).join(', ') || 'no life long enough',
            heapJudged.length > 0 && heapJudged.every((life) => life.flat === true),
          ),
        ]),
  ];
}
