// npm run bench:load — the load-and-fault run of issue 8 (see docs/scale-out.md). Loopback only, bounded in time:
// two `skillbot start` instances on one Redis database, signed Slack traffic spread over both (1,000 turns in 100
// chats), the fake model failing 5% of calls and the fake Slack API answering 2% with 429, instance A killed by
// SIGKILL midway and restarted. Prints the pass criteria as counts and the p50/p99 turn latency; exits 0 only
// when every criterion holds.
import { setMaxListeners } from 'node:events';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { startFakeAnthropic } from '../tests/fakes/anthropic.ts';
import { seededRandom } from '../tests/fakes/anthropic/faults.ts';
import { startFakeSlack } from '../tests/fakes/slack.ts';
import { Approver } from './load/approver.ts';
import { loadBrain } from './load/brain.ts';
import { runChats, type SentMessage } from './load/chatRun.ts';
import { Cleanup } from './load/cleanup.ts';
import { failoverOf } from './load/failover.ts';
import { computeChecks, memoryByLife } from './load/figures.ts';
import { Instance } from './load/instances.ts';
import { killAndRestart, type KillTimeline } from './load/killAndRestart.ts';
import { scanLogs } from './load/logScan.ts';
import { HeapSampler, heapByLife } from './load/heap.ts';
import { MemorySampler } from './load/memory.ts';
import { flushRedisDb } from './load/redisAdmin.ts';
import { readThreads } from './load/replies.ts';
import { printReport } from './load/report.ts';
import { loadSettings } from './load/settings.ts';
import { makeRunDir } from './load/skillFixture.ts';
import { RETRY_SCHEDULES, SlackTraffic } from './load/slackTraffic.ts';
import { SlackWatch } from './load/slackWatch.ts';
import { isOfPid, StoreView } from './load/storeCheck.ts';

const SIGNING_SECRET = 'load-signing-secret-0123456789abcdef';
/** Once the chats are done, how long to keep watching for late posts (a re-run answering twice would show here). */
const QUIET_MS = 5_000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

const settings = loadSettings(process.env);
const cleanup = new Cleanup();
const stopped = new AbortController();
// Every waiting chat listens on it.
setMaxListeners(0, stopped.signal);
const instances: Instance[] = [];
let passed = false;
/** Logs are kept when the run failed (to read why); after a pass or Ctrl-C the run dir goes. */
let keepLogs = false;

// Whatever happens, no child outlives the run.
process.on('exit', () => {
  for (const instance of instances) instance.kill();
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the run and cleaning up…`);
    stopped.abort();
    void cleanup.run().finally(() => process.exit(130));
  });
}

/**
 * The person steps away shortly before the kill and comes back once A is up again (45 s at most), so questions are
 * open while A dies: the ones A asked must still be answerable, and their turns must still run.
 */
function personAway(instanceA: Instance, answered: () => number, killAfter: number): () => boolean {
  const awayFrom = Math.round(killAfter * 0.9);
  let since: number | undefined;
  return () => {
    if (answered() < awayFrom) return false;
    since ??= Date.now();
    const back = instanceA.lives.length > 1 && instanceA.current?.healthyAt !== undefined;
    return !back && Date.now() - since < 45_000;
  };
}

async function main(): Promise<void> {
  const runStartedAt = Date.now();
  const hardLimit = setTimeout(() => stopped.abort(), settings.timeLimitMs);
  cleanup.add('time limit', () => clearTimeout(hardLimit));

  await flushRedisDb(settings.redisUrl);
  cleanup.add('flush the Redis database', () => flushRedisDb(settings.redisUrl));
  const run = await makeRunDir();
  cleanup.add('remove the run dir', () => (keepLogs ? undefined : rm(run.dir, { recursive: true, force: true })));

  const anthropic = await startFakeAnthropic({ brain: loadBrain });
  cleanup.add('close the Anthropic fake', () => anthropic.close());
  anthropic.faultRate({ rate: settings.modelFaultRate, kinds: ['429', '529', 'cut'], seed: settings.seed });
  const slack = await startFakeSlack();
  cleanup.add('close the Slack fake', () => slack.close());
  slack.rateLimitRate({ rate: settings.slackRateLimitRate, retryAfterS: 1, seed: settings.seed });

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: run.dir,
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.LOAD_LOG_LEVEL ?? 'warn',
    ANTHROPIC_API_KEY: 'load-test-key',
    ANTHROPIC_BASE_URL: anthropic.url,
    SKILLS_DIRS: run.skillsRoot,
    STORE_URL: settings.redisUrl,
    SLACK_BOT_TOKEN: slack.info.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    // No question may time out during the run: an unanswered one would be a lost approval, not a slow person.
    APPROVAL_TIMEOUT_MS: String(settings.timeLimitMs * 2),
  };
  for (const name of ['A', 'B']) {
    const inspectPort = settings.heapEvery > 0 ? await freePort() : undefined;
    instances.push(new Instance(name, await freePort(), env, run.dir, run.logsDir, inspectPort));
  }
  cleanup.add('stop the instances', async () => {
    await Promise.all(instances.map((instance) => instance.stop(10_000)));
  });
  await Promise.all(instances.map((instance) => instance.start()));
  const sampler = new MemorySampler(instances);
  cleanup.add('stop sampling', () => sampler.stop());

  const random = seededRandom(settings.seed);
  const traffic = new SlackTraffic(
    instances.map((instance) => instance.eventsUrl),
    SIGNING_SECRET,
    slack.info,
    stopped.signal,
    RETRY_SCHEDULES[settings.retrySchedule],
  );
  const [instanceA] = instances;
  if (!instanceA) throw new Error('no instance A');
  const threads = new Map<string, string>();
  const answered = () => watch.finals.size;
  const away = personAway(instanceA, answered, settings.killAfterAnswered);
  const approver = new Approver(traffic, (channel, threadTs) => threads.get(`${channel}/${threadTs}`), random, stopped.signal, away);
  const watch = new SlackWatch(slack, (question) => approver.answer(question));
  cleanup.add('stop watching', () => watch.close());
  const heap = new HeapSampler(instances, settings.heapEvery, settings.heapSnapshots ? run.logsDir : undefined);
  const heapTimer = settings.heapEvery > 0 ? setInterval(() => heap.onAnswered(watch.finals.size), 250) : undefined;
  cleanup.add('stop heap sampling', () => clearInterval(heapTimer));
  const storeView = await StoreView.open(settings.redisUrl);
  cleanup.add('close the store view', () => storeView.close());
  const openQuestions = async () => {
    const open = [...watch.questions.values()].filter((question) => question.resolvedAt === undefined);
    const askers = await Promise.all(open.map((question) => storeView.askedBy(question.approvalId)));
    return { open: open.length, ofInstance: askers.filter((asker) => isOfPid(asker, instanceA.current?.pid ?? -1)).length };
  };

  const trafficStartedAt = Date.now();
  const sent: SentMessage[] = [];
  const fault = killAndRestart(instanceA, answered, {
    afterAnswered: settings.killAfterAnswered,
    openQuestions,
    chatsHeld: () => storeView.chatsLeasedBy(instanceA.current?.pid ?? -1),
    restartAfterMs: settings.restartAfterMs,
    stopped: stopped.signal,
  });
  await runChats({ settings, traffic, watch, botUserId: slack.info.botUserId, people: slack, random, stopped: stopped.signal }, sent, threads);
  const trafficEndedAt = Date.now();
  const timedOut = stopped.signal.aborted;
  stopped.abort(); // the fault task gives up waiting if the kill point was never reached
  const timeline: KillTimeline = await fault;
  await approver.settled();
  clearInterval(heapTimer);
  // The last sample of each surviving life, once the traffic is over: what a quiet instance holds.
  if (settings.heapEvery > 0) await heap.sample(watch.finals.size);
  await delay(QUIET_MS);
  watch.close();
  sampler.stop();

  // Read before stopping: a graceful stop expires the questions an instance still waits on.
  const leftovers = await storeView.leftovers();
  await Promise.all(instances.map((instance) => instance.stop()));
  const lives = instances.flatMap((instance) => instance.lives);
  const logs = await scanLogs(lives);
  const threadState = readThreads(slack);
  const memory = memoryByLife(sampler.samples, lives);
  const questions = await Promise.all(
    [...watch.questions.values()].map(async (question) => ({ ...question, askedBy: await storeView.askedBy(question.approvalId) })),
  );
  // A question seen unresolved: its record and every Slack call that named its message or id, to trace why (the
  // first 20: each one reads every call of the run).
  const unresolved = await Promise.all(
    questions
      .filter((question) => question.resolvedAt === undefined)
      .slice(0, 20)
      .map(async (question) => ({
        question,
        record: await storeView.approval(question.approvalId),
        calls: slack.calls.filter((call) => [question.ts, question.approvalId].some((needle) => JSON.stringify(call.params).includes(needle))),
      })),
  );
  // Kept with the logs when the run fails: what was sent and asked, for tracing one message through the logs.
  await writeFile(join(run.logsDir, 'messages.json'), JSON.stringify({ sent, questions, unresolved, timeline, lives: instances.flatMap((instance) => instance.lives) }, null, 1));
  const heapLives = heapByLife(heap.samples, lives);
  const checks = computeChecks({ sent, threads: threadState, questions, lives, logs, leftovers, memory, heap: settings.heapEvery > 0 ? heapLives : undefined });
  if (timedOut) checks.push({ label: 'finished within the time limit', value: `no (${settings.timeLimitMs / 1000} s)`, pass: false });
  const failover = timeline.killedAt === undefined ? undefined : failoverOf(timeline.chatsOfKilled ?? [], timeline.killedAt, sent);
  if (failover) {
    checks.push({
      label: `failover p99 (kill → first answer in each of A's ${failover.chats} chats) ≤ ${settings.failoverP99Ms / 1000} s`,
      value: `${(failover.p99Ms / 1000).toFixed(2)} s (p50 ${(failover.p50Ms / 1000).toFixed(2)} s, max ${(failover.maxMs / 1000).toFixed(2)} s; unanswered ${failover.unanswered}; waited on the person's click ${failover.waitedOnPerson})`,
      pass: failover.unanswered === 0 && failover.p99Ms <= settings.failoverP99Ms,
    });
  }

  const modelFaults = new Map<string, number>();
  for (const request of anthropic.requests) modelFaults.set(request.outcome, (modelFaults.get(request.outcome) ?? 0) + 1);
  const slackCalls = slack.calls.length;
  const slack429 = slack.calls.filter((call) => call.status === 429).length;
  const at = (time: number | undefined) => (time === undefined ? 'never' : `+${((time - runStartedAt) / 1000).toFixed(1)} s`);
  const [, instanceB] = instances;

  passed = printReport({
    title: `bench:load — ${settings.chats} chats × ${settings.turnsPerChat} turns, ${settings.concurrency} chats at a time, 2 instances on ${settings.redisUrl}, ${settings.retrySchedule} retries (${RETRY_SCHEDULES[settings.retrySchedule].map((ms) => ms / 1000).join(', ')} s), seed ${settings.seed}`,
    checks,
    sent,
    threads: threadState,
    memory,
    heap: heapLives,
    heapSamples: heap.samples,
    lives,
    logs,
    runStartedAt,
    logsDir: run.logsDir,
    figures: [
      ['instances', `A on :${instanceA.port}, B on :${instanceB?.port ?? '?'}`],
      ['traffic time (first delivery to last reply)', `${((trafficEndedAt - trafficStartedAt) / 1000).toFixed(1)} s`],
      ['throughput', `${(sent.filter((message) => message.finalAt !== undefined).length / ((trafficEndedAt - trafficStartedAt) / 1000)).toFixed(1)} turns/s`],
      ['event deliveries / retried / never taken', `${traffic.counts.deliveries} / ${traffic.counts.retries} / ${traffic.counts.undelivered}`],
      ['approval clicks / re-clicks / clicks refused', `${approver.counts.clicked} / ${approver.counts.reclicks} / ${traffic.counts.failedClicks}`],
      ['model requests by outcome', [...modelFaults].map(([outcome, count]) => `${outcome} ${count}`).join(', ')],
      ['Slack API calls / answered 429', `${slackCalls} / ${slack429} (${((slack429 / Math.max(1, slackCalls)) * 100).toFixed(1)}%)`],
      ['A killed (SIGKILL)', `${at(timeline.killedAt)}, after ${timeline.answeredAtKill ?? '-'} answered, ${timeline.openQuestionsAtKill ?? '-'} questions open (${timeline.openOfAAtKill ?? '-'} asked by A)`],
      ['A restarted / healthy again', `${at(timeline.restartedAt)} / ${at(timeline.healthyAgainAt)}${timeline.restartError ? ` (${timeline.restartError})` : ''}`],
      ['script runs (audit) / messages whose script ran twice', `${leftovers.scriptRuns} / ${leftovers.turnsRunTwice}`],
    ],
  });
  keepLogs = !passed;
}

try {
  await main();
} catch (error) {
  console.error(`bench:load failed to run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  passed = false;
  keepLogs = true;
} finally {
  stopped.abort();
  await cleanup.run();
}
process.exitCode = passed ? 0 : 1;
