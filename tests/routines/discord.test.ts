// /routine and /hook on Discord, through the Discord fake: answered ephemerally; a hook's home is a channel
// message with a thread; a stranger cannot remove a routine, its owner can; a routine's run is a root message in
// the channel with its thread, answered there once. The scheduler's clock runs 60 times faster (a minute is a
// second); it is started only by the test of a run, as `skillbot start` starts it once the platform runs.
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/anthropic.ts';
import type { FakeUser } from '../fakes/discord.ts';
import { type DiscordSetup, useDiscordBot } from '../discord/harness.ts';

let setup: DiscordSetup;
useDiscordBot((started) => (setup = started), { env: { ROUTINES_CLOCK_SPEED: '60', ROUTINES_CLOCK_ORIGIN: String(Date.now()), ROUTINE_TICK_MS: '100' } });

async function answer(user: FakeUser, name: string, command: string): Promise<string> {
  const { discord } = setup;
  const interaction = discord.slash(user, discord.general, name, { command });
  const message = await discord.waitFor(() => {
    const reply = discord.world.message(interaction.originalMessageId ?? '');
    return reply?.content ? reply : undefined;
  }, `the answer to /${name} ${command}`);
  expect(message.ephemeral).toBe(true);
  return message.content;
}

describe('routines and hooks on Discord', () => {
  it('adds, lists and removes a routine privately; only its owner removes it', async () => {
    const { alice, bob } = setup;
    const added = await answer(alice, 'routine', 'add every weekday at 9:00 :: post the open incidents');
    expect(added).toMatch(new RegExp(`^Added \`r-[0-9a-f]{8}\` routine · every weekday at 9:00 · owner <@${alice.id}> · next: `));
    const id = /`(r-[0-9a-f]{8})`/.exec(added)?.[1] ?? '';
    expect(await answer(bob, 'routine', 'list')).toContain(`\`${id}\` routine`);
    expect(await answer(bob, 'routine', `remove ${id}`)).toBe(`Only <@${alice.id}> (its owner) or an admin may remove routine \`${id}\`.`);
    expect(await answer(alice, 'routine', `remove ${id}`)).toBe(`Routine \`${id}\` removed.`);
    expect(await answer(alice, 'routine', 'every blue moon')).toMatch(/^Usage: `\/routine add WHEN :: INSTRUCTIONS`/);
  });

  it('adds a hook: the URL and secret privately, its home a message with a thread in the channel', async () => {
    const { alice, discord } = setup;
    const added = await answer(alice, 'hook', 'add github push');
    const id = /`(h-[0-9a-f]{8})`/.exec(added)?.[1] ?? '';
    expect(added).toContain(`/hooks/${id}`);
    expect(added).toMatch(/Secret \(shown once\): `[0-9a-f]{64}`/);
    const home = discord.messagesIn(discord.general.id).find((message) => message.content.startsWith(`Webhook ${id} `));
    expect(home?.content).toBe(`Webhook ${id} (github events push): each delivery starts a turn in this thread.`);
    expect(discord.threads().some((thread) => thread.name?.startsWith(`Webhook ${id}`))).toBe(true);
  });

  it("runs a routine: a root message naming it in the channel, its thread, the owner's turn answered there once", async () => {
    const { alice, discord, anthropic, bot } = setup;
    anthropic.setBrain(() => textReply('no incidents open'));
    await bot.app.routines.start();
    const added = await answer(alice, 'routine', 'add every minute :: post the open incidents');
    const id = /`(r-[0-9a-f]{8})`/.exec(added)?.[1] ?? '';
    const root = await discord.waitFor(() => discord.messagesIn(discord.general.id).find((message) => message.content.startsWith(`Routine ${id} (every minute): run of `)), 'the run\'s root message');
    // One run is enough: removed at once, so no later tick starts another.
    expect(await answer(alice, 'routine', `remove ${id}`)).toBe(`Routine \`${id}\` removed.`);
    expect(root.author.id).toBe(discord.bot.id);
    const thread = await discord.waitFor(() => discord.threads().find((each) => each.parentId === discord.general.id && each.name.startsWith(`Routine ${id} `)), 'the run\'s thread');
    const answered = () => discord.messagesIn(thread.id).filter((message) => message.content === 'no incidents open');
    await discord.waitFor(() => answered().length > 0, 'the answer in the run\'s thread');
    const asked = anthropic.requests.filter((request) => JSON.stringify(request.body?.messages ?? []).includes('post the open incidents'));
    expect(asked).toHaveLength(1);
    await delay(1_500);
    expect(answered()).toHaveLength(1);
    expect(discord.messagesIn(discord.general.id).filter((message) => message.content.startsWith(`Routine ${id} `))).toHaveLength(1);
  });
});
