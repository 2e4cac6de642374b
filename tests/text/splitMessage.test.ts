// The one splitter, with each platform's profile: limits, code fences, paragraph cuts, tokens kept whole.
import { describe, expect, it } from 'vitest';
import { DISCORD_MESSAGE_LIMIT, DISCORD_MESSAGES } from '../../adapters/discord/messageLimits.ts';
import { CUT_NOTE, SLACK_MESSAGES } from '../../adapters/slack/messageLimits.ts';
import { splitMessage } from '../../src/text/splitMessage.ts';

const fences = (part: string): number => part.split('\n').filter((line) => line.startsWith('```')).length;

describe('splitMessage with the Slack profile', () => {
  it('leaves a short message alone', () => {
    expect(splitMessage('hello', { ...SLACK_MESSAGES, limit: 100 })).toEqual(['hello']);
  });

  it('cuts between paragraphs, every part under the limit, nothing lost', () => {
    const paragraphs = Array.from({ length: 12 }, (_, index) => `Paragraph ${index} ${'word '.repeat(15).trim()}`);
    const text = paragraphs.join('\n\n');
    const parts = splitMessage(text, { ...SLACK_MESSAGES, limit: 300 });
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(300);
    for (const part of parts) expect(part.startsWith('Paragraph')).toBe(true);
    expect(parts.join('\n\n')).toBe(text);
  });

  it('closes and reopens a code block cut in two', () => {
    const code = Array.from({ length: 40 }, (_, index) => `line ${index} of the code`).join('\n');
    const parts = splitMessage(`Here:\n\`\`\`\n${code}\n\`\`\`\nDone.`, { ...SLACK_MESSAGES, limit: 300 });
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(300);
      expect(fences(part) % 2).toBe(0);
    }
    const lines = parts.join('\n').split('\n').filter((line) => line.startsWith('line '));
    expect(lines).toHaveLength(40);
  });

  it('cuts a single long line at spaces and never inside an escape or a link', () => {
    const text = Array.from({ length: 60 }, (_, index) => `a&amp;b <https://x.io/${index}|link ${index}>`).join(' ');
    const parts = splitMessage(text, { ...SLACK_MESSAGES, limit: 200, maxParts: 50 });
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(200);
      expect(part).not.toMatch(/&am?$|&amp?$|<[^>]*$/);
    }
    expect(parts.join('')).toBe(text);
  });

  it('cuts an unbroken run of characters hard, within the limit', () => {
    const parts = splitMessage('x'.repeat(1000), { ...SLACK_MESSAGES, limit: 300 });
    expect(parts.join('')).toBe('x'.repeat(1000));
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(300);
  });

  it('stops after the maximum number of messages and says so', () => {
    const text = Array.from({ length: 200 }, (_, index) => `line ${index} ${'z'.repeat(40)}`).join('\n');
    const parts = splitMessage(text, { ...SLACK_MESSAGES, limit: 300, maxParts: 3 });
    expect(parts).toHaveLength(3);
    expect(parts[2]?.endsWith(CUT_NOTE)).toBe(true);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(300);
  });
});

/** Removes the fences the splitter added, so the chunks can be compared with the original text. */
function rejoin(chunks: string[]): string {
  return chunks
    .map((chunk, index) => {
      let text = chunk;
      const reopened = index > 0 && /^```/.test(text) && /\n```$/.test(chunks[index - 1] ?? '');
      if (reopened) text = text.slice(text.indexOf('\n') + 1);
      const closedHere = index < chunks.length - 1 && /\n```$/.test(text) && /^```/.test(chunks[index + 1] ?? '');
      if (closedHere) text = text.slice(0, -4);
      return text;
    })
    .join('\n');
}

const fenceCount = (text: string) => text.split('\n').filter((line) => /^\s*```/.test(line)).length;

describe('splitMessage with the Discord profile', () => {
  it('keeps a short answer as one message, untouched', () => {
    expect(splitMessage('Hello **world**\n\n- one\n- two', DISCORD_MESSAGES)).toEqual(['Hello **world**\n\n- one\n- two']);
  });

  it('cuts a long answer at line ends, every message within 2,000 characters, nothing lost', () => {
    const lines = Array.from({ length: 300 }, (_, index) => `Line ${index}: ${'lorem ipsum '.repeat(index % 7)}`.trimEnd());
    const text = lines.join('\n');
    const chunks = splitMessage(text, DISCORD_MESSAGES);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
    expect(chunks.join('\n')).toBe(text);
    // Every cut falls between two whole lines.
    for (const chunk of chunks) for (const line of chunk.split('\n')) expect(lines).toContain(line);
  });

  it('closes a code block cut in two and reopens it with its language', () => {
    const code = Array.from({ length: 120 }, (_, index) => `const value${index} = compute(${index}); // step ${index}`);
    const text = ['Here is the script:', '```ts', ...code, '```', 'Done.'].join('\n');
    const chunks = splitMessage(text, DISCORD_MESSAGES);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      // Each message renders on its own: its fences are balanced.
      expect(fenceCount(chunk) % 2).toBe(0);
    }
    expect(chunks[0]).toMatch(/\n```$/);
    expect(chunks[1]).toMatch(/^```ts\n/);
    expect(rejoin(chunks)).toBe(text);
  });

  it('moves a code block that fits in one message to the next message instead of cutting it', () => {
    const prose = ['one', 'two', 'three'].map((word) => `${word} `.repeat(130).trim()).join('\n');
    const block = ['```python', ...Array.from({ length: 30 }, (_, index) => `print(${index})`), '```'].join('\n');
    expect(prose.length + block.length).toBeGreaterThan(DISCORD_MESSAGE_LIMIT);
    expect(splitMessage(`${prose}\n${block}`, DISCORD_MESSAGES)).toEqual([prose, block]);
  });

  it('cuts a single over-long line at spaces, and a line without spaces anywhere', () => {
    const words = 'alpha beta gamma delta '.repeat(200).trim();
    const wordChunks = splitMessage(words, DISCORD_MESSAGES);
    for (const chunk of wordChunks) expect(chunk.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
    expect(wordChunks.join('')).toBe(words);
    for (const chunk of wordChunks.slice(0, -1)) expect(chunk.endsWith(' ')).toBe(true);

    const blob = 'x'.repeat(4500);
    const blobChunks = splitMessage(blob, DISCORD_MESSAGES);
    expect(blobChunks.map((chunk) => chunk.length)).toEqual([2000, 2000, 500]);
  });

  it('keeps over-long lines inside a code block fenced in every message', () => {
    const text = ['```', 'y'.repeat(4200), '```'].join('\n');
    const chunks = splitMessage(text, DISCORD_MESSAGES);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      expect(chunk.startsWith('```')).toBe(true);
      expect(chunk.endsWith('```')).toBe(true);
    }
    expect(chunks.join('').replace(/```\n?|\n```/g, '')).toBe('y'.repeat(4200));
  });

  it('never cuts an emoji in half', () => {
    const text = '😀'.repeat(1500);
    const chunks = splitMessage(text, DISCORD_MESSAGES);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      expect(chunk).toMatch(/^(😀)+$/u);
    }
    expect(chunks.join('')).toBe(text);
  });

  it('sends no empty or blank messages', () => {
    const text = `${'a'.repeat(1999)}\n\n\n\n${'b'.repeat(10)}`;
    const chunks = splitMessage(text, DISCORD_MESSAGES);
    for (const chunk of chunks) expect(chunk.trim()).not.toBe('');
    expect(splitMessage('   \n\n ', DISCORD_MESSAGES)).toEqual([]);
  });
});
