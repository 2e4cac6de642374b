import { describe, expect, it } from 'vitest';
import { DISCORD_MESSAGE_LIMIT, splitMessage } from '../../adapters/discord/split.ts';

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

describe('splitMessage', () => {
  it('keeps a short answer as one message, untouched', () => {
    expect(splitMessage('Hello **world**\n\n- one\n- two')).toEqual(['Hello **world**\n\n- one\n- two']);
  });

  it('cuts a long answer at line ends, every message within 2,000 characters, nothing lost', () => {
    const lines = Array.from({ length: 300 }, (_, index) => `Line ${index}: ${'lorem ipsum '.repeat(index % 7)}`.trimEnd());
    const text = lines.join('\n');
    const chunks = splitMessage(text);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
    expect(chunks.join('\n')).toBe(text);
    // Every cut falls between two whole lines.
    for (const chunk of chunks) for (const line of chunk.split('\n')) expect(lines).toContain(line);
  });

  it('closes a code block cut in two and reopens it with its language', () => {
    const code = Array.from({ length: 120 }, (_, index) => `const value${index} = compute(${index}); // step ${index}`);
    const text = ['Here is the script:', '```ts', ...code, '```', 'Done.'].join('\n');
    const chunks = splitMessage(text);
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
    expect(splitMessage(`${prose}\n${block}`)).toEqual([prose, block]);
  });

  it('cuts a single over-long line at spaces, and a line without spaces anywhere', () => {
    const words = 'alpha beta gamma delta '.repeat(200).trim();
    const wordChunks = splitMessage(words);
    for (const chunk of wordChunks) expect(chunk.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
    expect(wordChunks.join('')).toBe(words);
    for (const chunk of wordChunks.slice(0, -1)) expect(chunk.endsWith(' ')).toBe(true);

    const blob = 'x'.repeat(4500);
    const blobChunks = splitMessage(blob);
    expect(blobChunks.map((chunk) => chunk.length)).toEqual([2000, 2000, 500]);
  });

  it('keeps over-long lines inside a code block fenced in every message', () => {
    const text = ['```', 'y'.repeat(4200), '```'].join('\n');
    const chunks = splitMessage(text);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      expect(chunk.startsWith('```')).toBe(true);
      expect(chunk.endsWith('```')).toBe(true);
    }
    expect(chunks.join('').replace(/```\n?|\n```/g, '')).toBe('y'.repeat(4200));
  });

  it('never cuts an emoji in half', () => {
    const text = '😀'.repeat(1500);
    const chunks = splitMessage(text);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      expect(chunk).toMatch(/^(😀)+$/u);
    }
    expect(chunks.join('')).toBe(text);
  });

  it('sends no empty or blank messages', () => {
    const text = `${'a'.repeat(1999)}\n\n\n\n${'b'.repeat(10)}`;
    const chunks = splitMessage(text);
    for (const chunk of chunks) expect(chunk.trim()).not.toBe('');
    expect(splitMessage('   \n\n ')).toEqual([]);
  });
});
