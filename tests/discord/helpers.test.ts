// The adapter's pure pieces: button ids, outcome wording, thread names, mentions, autocomplete choices.
import { describe, expect, it } from 'vitest';
import { customId, describeOutcome, parseCustomId, questionMessage } from '../../adapters/discord/approvalCard.ts';
import { skillChoices, skillListPages } from '../../adapters/discord/commands.ts';
import { COMPONENTS_V2, messageBodyError } from '../fakes/discord/validation.ts';
import { withoutMention } from '../../adapters/discord/messages.ts';
import { threadName } from '../../adapters/discord/threadNames.ts';
import { dmPlace, threadPlace } from '../../adapters/discord/places.ts';
import type { ApprovalRecord } from '../../src/approvals/types.ts';
import type { Skill } from '../../src/skills/types.ts';

const record: ApprovalRecord = {
  id: 'Ab3_x-Yz0123456789',
  status: 'pending',
  worldId: 'discord:1:2',
  chatId: 'discord:1:2/3',
  requesterId: '42',
  title: 'Run code from skill disk-report?',
  body: 'scripts/report.sh\n```not a fence```',
  options: ['yes_once', 'yes_in_session', 'no'],
  defaultOption: 'no',
  skillId: 'disk-report',
  skillHash: 'abc',
  items: [],
  createdAt: 0,
  expiresAt: 600_000,
};

describe('Discord adapter helpers', () => {
  it('round-trips hitl:<approvalId>:<option> and refuses ids that would pass 100 characters', () => {
    expect(parseCustomId(customId(record.id, 'yes_in_session'))).toEqual({ approvalId: record.id, option: 'yes_in_session' });
    expect(parseCustomId('other:thing')).toBeUndefined();
    expect(() => customId('x'.repeat(90), 'yes_in_session')).toThrow(RangeError);
  });

  it('keeps the body inside its code block even when it holds backticks', () => {
    const { content } = questionMessage(record);
    expect(content.split('\n').filter((line) => line.startsWith('```'))).toEqual(['```', '```']);
    expect(content.length).toBeLessThanOrEqual(2000);
    const long = questionMessage({ ...record, body: `${'y'.repeat(5000)} --drop-table customers` });
    expect(long.content.length).toBeLessThanOrEqual(2000);
    expect(long.content).not.toContain('yyy');
    expect(long.content).toContain(`attached in full as \`approval-${record.id}.txt\``);
    expect(long.files?.[0]?.content).toContain(`${'y'.repeat(5000)} --drop-table customers`);
  });

  it('words outcomes by who or what decided', () => {
    expect(describeOutcome({ ...record, status: 'resolved', outcome: 'yes_once', option: 'yes_once', decidedBy: '42' })).toBe('✅ **Approved once** by <@42>.');
    expect(describeOutcome({ ...record, status: 'resolved', outcome: 'timeout', option: 'no', decidedBy: 'system:timeout' })).toBe('⛔ **Not run**: nobody answered in time.');
  });

  it("a routine's card offers and reports \"for this routine\" (the owner's answer) or \"for this run\" (an approver's), same custom ids", () => {
    const routine = { ...record, routineId: 'r-0000abcd' };
    const buttons = JSON.stringify(questionMessage(routine).components);
    expect(buttons).toContain('"label":"Allow for this routine"');
    expect(buttons).toContain(`"custom_id":"hitl:${record.id}:yes_in_session"`);
    const decided = { ...routine, status: 'resolved' as const, outcome: 'yes_in_session' as const, option: 'yes_in_session' as const };
    expect(describeOutcome({ ...decided, decidedBy: '42' })).toBe('✅ **Approved for this routine** by <@42>.');
    expect(describeOutcome({ ...decided, decidedBy: '77' })).toBe("✅ **Approved for this run** (only the routine's owner can approve it for the routine) by <@77>.");
  });

  it('names threads from the first line of the question, without mentions, at most 80 characters', () => {
    expect(threadName('\n  <@123> deploy   the app\nsecond line', 'fallback')).toBe('deploy the app');
    expect(threadName('<@123>', 'fallback')).toBe('fallback');
    expect(threadName('z'.repeat(200), 'fallback')).toHaveLength(80);
    expect(withoutMention('<@9> hi <@!9> there <@&7> <@8>', '9', ['7'])).toBe('hi there <@8>');
  });

  it('offers at most 25 choices, id prefix first, each name within 100 characters', () => {
    const skills = Array.from({ length: 40 }, (_, index) => ({ id: `tool-${String(index).padStart(2, '0')}`, description: `Does thing ${index}. ${'x'.repeat(150)}` }) as Skill);
    const all = skillChoices([...skills, { id: 'notes', description: 'Uses a tool to write notes' } as Skill], 'tool');
    expect(all).toHaveLength(25);
    expect(all.every((choice) => choice.name.length <= 100 && choice.value.startsWith('tool-'))).toBe(true);
    expect(skillChoices([...skills.slice(0, 2), { id: 'notes', description: 'Uses a tool to write notes' } as Skill], 'tool').map((choice) => choice.value)).toEqual(['tool-00', 'tool-01', 'notes']);
  });

  it('builds world and chat ids: a thread under its parent channel, a DM as its own world', () => {
    expect(threadPlace('1', '2', '3')).toEqual({ worldId: 'discord:1:2', chatId: 'discord:1:2/3', channelId: '3' });
    expect(dmPlace('5')).toEqual({ worldId: 'discord:@me:5', chatId: 'discord:@me:5/5', channelId: '5' });
  });
});

describe('/skills as Components V2', () => {
  it('pages a long list into containers Discord accepts, every skill listed once', () => {
    const many = Array.from({ length: 120 }, (_, i) => ({ id: `skill-${String(i).padStart(3, '0')}`, description: `Does task ${i}. ${'Detail. '.repeat(20)}`, ...(i % 2 ? { argumentHint: '[target]' } : {}) }) as Skill);
    const pages = skillListPages(many);
    expect(pages.length).toBeGreaterThan(1);
    const text = JSON.stringify(pages);
    for (const skill of many) expect(text.split(`\`${skill.id}\``).length - 1).toBe(1);
    for (const components of pages) expect(messageBodyError({ flags: COMPONENTS_V2, components }, true)).toBeUndefined();
  });
});
