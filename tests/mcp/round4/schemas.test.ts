// Issue 35, N3: a server's JSON-schema `pattern` never runs with backtracking on the bot's thread, neither in the
// argument check before the card nor in the SDK's check of a structured result against an output schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinearSchemaValidator } from '../../../src/mcp/schemaValidator.ts';
import type { McpHarness } from '../harness.ts';
import { callOne, startRound4Bot } from './round4Bot.ts';

let bot: McpHarness;
beforeAll(async () => {
  bot = await startRound4Bot();
}, 60_000);
afterAll(async () => bot?.close());

// 33 characters: JavaScript's engine needs 2^33 steps to refuse them (hours); a linear engine, microseconds.
const EVIL = `${'a'.repeat(32)}!`;

describe('N3: backtracking patterns in a server\'s schemas', () => {
  it('an input schema\'s pattern refuses the argument at once, and another chat is answered meanwhile', async () => {
    const call = callOne(bot, 'mcp__r4__pattern-in', { text: EVIL }, 'n3-in');
    const other = await bot.say('hello', 'n3-other');
    expect(other.reply).toContain('still here');
    expect(await call).toMatch(/^mcp__r4__pattern-in was not called: the arguments do not match the tool's input schema: .*must match pattern "\^\(a\+\)\+\$"/);
    expect(await callOne(bot, 'mcp__r4__pattern-in', { text: 'aaaa' }, 'n3-in-ok')).toBe('ran pattern-in');
  }, 30_000);

  it('an output schema\'s pattern refuses the structured result at once', async () => {
    const call = callOne(bot, 'mcp__r4__pattern-out', {}, 'n3-out');
    const other = await bot.say('hello', 'n3-other-2');
    expect(other.reply).toContain('still here');
    expect(await call).toMatch(/^mcp__r4__pattern-out failed: .*(does not match|must match pattern)/);
  }, 30_000);

  it('a pattern the linear engine cannot run (a lookahead) makes the tool unusable, with the reason', () => {
    const check = new LinearSchemaValidator().getValidator({ type: 'object', properties: { t: { type: 'string', pattern: '^(?=a)a+$' } } });
    const result = check({ t: 'aaa' });
    expect(result.valid).toBe(false);
    expect(result.errorMessage).toMatch(/^the server's schema cannot be checked here \(.*\(\?=/);
  });
});
