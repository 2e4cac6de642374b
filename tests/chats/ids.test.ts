import { describe, expect, it } from 'vitest';
import {
  ChatIdError,
  chatId,
  discordWorldId,
  parseChatId,
  parseWorldId,
  slackWorldId,
  TERMINAL_WORLD_ID,
} from '../../src/chats/ids.ts';

describe('world and chat ids', () => {
  it('builds the documented shapes and parses them back', () => {
    const slack = slackWorldId('T024BE7LD', 'C01234567');
    expect(slack).toBe('slack:T024BE7LD:C01234567');
    expect(parseWorldId(slack)).toEqual({ platform: 'slack', worldId: slack, teamId: 'T024BE7LD', channelId: 'C01234567' });
    const slackThread = chatId(slack, '1712345678.123456');
    expect(slackThread).toBe('slack:T024BE7LD:C01234567/1712345678.123456');
    expect(parseChatId(slackThread)).toEqual({ worldId: slack, threadId: '1712345678.123456', platform: 'slack' });

    const discord = discordWorldId('81384788765712384', '1234567890123456789');
    expect(discord).toBe('discord:81384788765712384:1234567890123456789');
    expect(parseChatId(chatId(discord, '1234567890123456790'))).toEqual({
      worldId: discord,
      threadId: '1234567890123456790',
      platform: 'discord',
    });
    expect(parseWorldId(discordWorldId('@me', '42'))).toMatchObject({ platform: 'discord', guildId: '@me' });

    expect(TERMINAL_WORLD_ID).toBe('terminal:local');
    expect(parseChatId(chatId(TERMINAL_WORLD_ID, 'session-2024-05-01'))).toEqual({
      worldId: 'terminal:local',
      threadId: 'session-2024-05-01',
      platform: 'terminal',
    });
  });

  it.each([
    'slack:T1:C1',
    'slack:T1:C1/',
    '/1712345678.1',
    'slack:t1:c1/1.2',
    'slack:T1/1.2',
    'slack:T1:C1:X/1.2',
    'discord:guild:1/2',
    'discord:1:abc/2',
    'terminal:remote/1',
    'teams:T1:C1/1',
    'slack:T1:C1/a/b',
    'slack:T1:C1/has space',
    `slack:T1:C1/${'x'.repeat(129)}`,
  ])('rejects %j with a clear error', (bad) => {
    expect(() => parseChatId(bad)).toThrow(ChatIdError);
    expect(() => parseChatId(bad)).toThrow(/is not valid/);
  });

  it('refuses to build an id from bad parts', () => {
    expect(() => slackWorldId('T1', 'c1')).toThrow(/Slack channel id "c1" is not valid/);
    expect(() => discordWorldId('guild', '1')).toThrow(/Discord guild id "guild" is not valid/);
    expect(() => chatId('slack:T1', '1.2')).toThrow(/world id "slack:T1" is not valid: expected slack:<team>:<channel>/);
    expect(() => chatId(TERMINAL_WORLD_ID, 'a/b')).toThrow(/thread id "a\/b" is not valid/);
  });
});
