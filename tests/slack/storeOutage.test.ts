// Redis unreachable mid-run: deliveries are refused (5xx, so Slack retries), never half-accepted; the bot
// recovers by itself and every message is answered exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TURN_STOP_ACTION_ID } from '../../adapters/slack/turnControls.ts';
import { type FakeAnthropic, startFakeAnthropic, textReply } from '../fakes/anthropic.ts';
import { type FakeSlack, startFakeSlack } from '../fakes/slack.ts';
import { HeldCalls } from '../platforms/skills.ts';
import { ALICE, CHANNEL, makeSkillsDir, repliesIn, type SlackBot, startSlackBot, waitForReply } from './harness.ts';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP relay between the bot and its Redis, so the test can cut the bot off and let it back in. */
class Relay {
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | undefined;
  constructor(
    readonly port: number,
    private readonly target: number,
  ) {}

  async open(): Promise<void> {
    this.#server = net.createServer((inbound) => {
      const outbound = net.connect(this.target, '127.0.0.1');
      for (const socket of [inbound, outbound]) {
        this.#sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => this.#sockets.delete(socket));
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => this.#server!.listen(this.port, '127.0.0.1', resolve));
  }

  async cut(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
    this.#server = undefined;
  }
}

let redis: ChildProcess;
let relay: Relay;
let slack: FakeSlack;
let anthropic: FakeAnthropic;
let skills: Awaited<ReturnType<typeof makeSkillsDir>>;
let bot: SlackBot;

beforeAll(async () => {
  // A Redis of this test's own, so cutting it off disturbs no other test.
  const redisPort = await freePort();
  redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = net.connect(redisPort, '127.0.0.1', () => resolve(probe.end() !== undefined));
      probe.on('error', () => resolve(false));
    });
    if (up) break;
    await delay(50);
  }
  relay = new Relay(await freePort(), redisPort);
  await relay.open();
  slack = await startFakeSlack();
  anthropic = await startFakeAnthropic({ brain: (req) => textReply(`pong: ${JSON.stringify(req.messages.at(-1)?.content).includes('second') ? 'second' : 'first'}`) });
  skills = await makeSkillsDir();
  bot = await startSlackBot({ slack, anthropic, skillsRoot: skills.skillsRoot, storeUrl: `redis://127.0.0.1:${relay.port}` });
});

afterAll(async () => {
  await bot?.stop();
  await relay?.cut();
  await slack?.close();
  await anthropic?.close();
  await skills?.remove();
  redis?.kill('SIGKILL');
});

const mentionText = (text: string): string => `<@${slack.info.botUserId}> ${text}`;

describe('the store unreachable mid-run', () => {
  it('refuses deliveries while Redis is away, then takes the retry and answers everything exactly once, without a restart', async () => {
    const firstTs = bot.sender.nextTs();
    expect((await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts: firstTs, text: mentionText('first') })).status).toBe(200);
    await waitForReply(slack, CHANNEL, firstTs, 'pong: first');
    // The first turn is over (its history written, its message out of the inbox) before the store goes away.
    await vi.waitFor(async () => expect(await bot.app.store.inboxSize()).toBe(0), { timeout: 15_000, interval: 50 });

    await relay.cut();
    const secondTs = bot.sender.nextTs();
    const message = { channel: CHANNEL, user: ALICE, ts: secondTs, text: mentionText('second') };
    const refused = await bot.sender.mention(message);
    // Not acknowledged: nothing of it was stored, and Slack will deliver it again.
    expect(refused.status).toBeGreaterThanOrEqual(500);
    // Away longer than an instance's liveness lasts, so the bot also has to find its own footing again.
    await delay(4_000);
    await relay.open();
    for (let i = 0; i < 150 && !(await bot.app.store.ping()); i++) await delay(100);

    const retry = await bot.sender.mention(message, { eventId: refused.eventId, retryNum: 1, retryReason: 'http_error' });
    expect(retry.status).toBe(200);
    await waitForReply(slack, CHANNEL, secondTs, 'pong: second');
    // A further retry of either message is a duplicate: answered 200, nothing posted again.
    const again = await bot.sender.mention(message, { eventId: refused.eventId, retryNum: 2, retryReason: 'http_timeout' });
    expect(again.status).toBe(200);
    await delay(500);
    expect(repliesIn(slack, CHANNEL, firstTs)).toHaveLength(1);
    expect(repliesIn(slack, CHANNEL, secondTs)).toHaveLength(1);
    // The answered message leaves the inbox right after its reply.
    await vi.waitFor(async () => expect(await bot.app.store.inboxSize()).toBe(0), { timeout: 15_000, interval: 100 });
  });

  it('still tells the person something went wrong when the store goes away in the middle of a turn', async () => {
    const held = new HeldCalls();
    anthropic.setBrain(async () => {
      await held.hold();
      return textReply('an answer that cannot be kept');
    });
    const ts = bot.sender.nextTs();
    expect((await bot.sender.mention({ channel: CHANNEL, user: ALICE, ts, text: mentionText('third') })).status).toBe(200);
    // The turn is under way (its message shows with the Stop button, the model is writing) when the store goes.
    await slack.waitFor(() => slack.thread(CHANNEL, ts).find((message) => JSON.stringify(message.blocks ?? []).includes(TURN_STOP_ACTION_ID)), { what: 'the turn message' });
    await vi.waitFor(() => expect(held.count).toBe(1), { timeout: 10_000, interval: 20 });
    await relay.cut();
    held.releaseAll();
    // Keeping the turn fails: the person is told, in the turn's own message, not left with a half answer.
    await slack.waitFor(() => slack.thread(CHANNEL, ts).find((message) => message.text.startsWith('Something went wrong on my side')), { what: 'the apology', timeoutMs: 20_000 });
    expect(slack.thread(CHANNEL, ts).filter((message) => message.threadTs === ts).map((message) => message.text)).toEqual([expect.stringMatching(/^Something went wrong on my side/)]);
    await relay.open();
  });
});
