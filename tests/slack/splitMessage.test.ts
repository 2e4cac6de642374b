import { describe, expect, it } from 'vitest';
import { CUT_NOTE, splitMrkdwn } from '../../adapters/slack/splitMessage.ts';

const fences = (part: string): number => part.split('\n').filter((line) => line.startsWith('```')).length;

describe('splitMrkdwn', () => {
  it('leaves a short message alone', () => {
    expect(splitMrkdwn('hello', 100)).toEqual(['hello']);
  });

  it('cuts between paragraphs, every part under the limit, nothing lost', () => {
    const paragraphs = Array.from({ length: 12 }, (_, index) => `Paragraph ${index} ${'word '.repeat(15).trim()}`);
    const text = paragraphs.join('\n\n');
    const parts = splitMrkdwn(text, 300);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(300);
    for (const part of parts) expect(part.startsWith('Paragraph')).toBe(true);
    expect(parts.join('\n\n')).toBe(text);
  });

  it('closes and reopens a code block cut in two', () => {
    const code = Array.from({ length: 40 }, (_, index) => `line ${index} of the code`).join('\n');
    const parts = splitMrkdwn(`Here:\n\`\`\`\n${code}\n\`\`\`\nDone.`, 300);
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
    const parts = splitMrkdwn(text, 200, 50);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(200);
      expect(part).not.toMatch(/&am?$|&amp?$|<[^>]*$/);
    }
    expect(parts.join('')).toBe(text);
  });

  it('cuts an unbroken run of characters hard, within the limit', () => {
    const parts = splitMrkdwn('x'.repeat(1000), 300);
    expect(parts.join('')).toBe('x'.repeat(1000));
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(300);
  });

  it('stops after the maximum number of messages and says so', () => {
    const text = Array.from({ length: 200 }, (_, index) => `line ${index} ${'z'.repeat(40)}`).join('\n');
    const parts = splitMrkdwn(text, 300, 3);
    expect(parts).toHaveLength(3);
    expect(parts[2]?.endsWith(CUT_NOTE)).toBe(true);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(300);
  });
});
