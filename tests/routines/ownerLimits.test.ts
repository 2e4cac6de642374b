// A webhook delivery is its owner's turn: the owner's limits apply as if they had asked. Past the limit, nothing
// is queued (the hook answers 403), no model call is made, and the owner alone is told why.
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/anthropic.ts';
import { ALICE, CHANNEL, commandAnswer, type SlackSetup, useSlackBot, waitForReply } from '../slack/harness.ts';

// The fake workspace's team id is fixed (tests/fakes/slack.ts), so the world can be named before the bot starts.
const folder = mkdtempSync(join(tmpdir(), 'skillbot-owner-limits-'));
const configFile = join(folder, 'config.yaml');
writeFileSync(configFile, 'defaults:\n  limits: { turnsPerPersonPerHour: 1 }\n');

let setup: SlackSetup;
useSlackBot((ready) => (setup = ready), { env: { SKILLBOT_CONFIG: configFile, ROUTINE_TICK_MS: '100' } });

const command = (name: string, text: string) => commandAnswer(setup, name, text, { channel: CHANNEL, user: ALICE });

describe('a scheduled turn is its owner\'s', () => {
  it('a delivery past the owner\'s turn limit starts nothing (403) and tells only the owner', async () => {
    const { slack, anthropic, bot } = setup;
    anthropic.setBrain(() => textReply('triaged'));
    const added = await command('/hook', 'add generic :: triage it');
    const id = /`(h-[0-9a-f]{8})`/.exec(added)?.[1] ?? '';
    const secret = /Secret \(shown once\): `([0-9a-f]{64})`/.exec(added)?.[1] ?? '';
    const root = await slack.waitFor(() => slack.messages.find((message) => message.channel === CHANNEL && message.threadTs === undefined && message.text.startsWith(`Webhook ${id} `)), { what: 'the hook root' });
    const url = bot.eventsUrl.replace('/slack/events', `/hooks/${id}`);
    const body = '{"action":"opened"}';
    const headers = (delivery: string) => ({ 'content-type': 'application/json', 'x-skillbot-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`, 'x-skillbot-delivery': delivery });

    expect((await fetch(url, { method: 'POST', body, headers: headers('d-1') })).status).toBe(202);
    await waitForReply(slack, CHANNEL, root.ts, 'triaged');
    const notesBefore = slack.ephemerals.filter((entry) => entry.user === ALICE).length;

    const second = await fetch(url, { method: 'POST', body, headers: headers('d-2') });
    expect(second.status).toBe(403);
    await slack.waitFor(() => slack.ephemerals.filter((entry) => entry.user === ALICE).length > notesBefore, { what: 'the owner\'s private note' });
    expect(slack.ephemerals.filter((entry) => entry.user === ALICE).at(-1)?.text).toMatch(/ask again in \d+ min/);
    await delay(1_000);
    expect(anthropic.requests.filter((request) => request.body !== undefined)).toHaveLength(1);
  });
});
