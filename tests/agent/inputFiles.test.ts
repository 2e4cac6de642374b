import { describe, expect, it } from 'vitest';
import { fileBlocks, historyFileBlocks, type InputFile } from '../../src/agent/inputFiles.ts';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
const file = (name: string, mimeType: string, bytes: Buffer | string): InputFile => ({ name, mimeType, bytes: Buffer.from(bytes) });
const blocks = (...files: InputFile[]) => fileBlocks({ files, notRead: [] }) as Array<{ type: string; text?: string; source?: { media_type?: string } }>;

describe('files as model input', () => {
  it('shows an image by what its bytes are, not by the type it was sent with', () => {
    const shown = blocks(file('photo.png', 'image/png', JPEG));
    expect(shown.find((block) => block.type === 'image')?.source?.media_type).toBe('image/jpeg');
  });

  it('does not send a file that only claims to be an image or a PDF (the API would refuse the whole turn)', () => {
    const shown = blocks(file('fake.png', 'image/png', 'not an image'), file('fake.pdf', 'application/pdf', 'not a pdf'));
    expect(shown.some((block) => block.type === 'image' || block.type === 'document')).toBe(false);
    expect(shown.map((block) => block.text).join('\n')).toMatch(/fake\.png.*not the image its type says[\s\S]*fake\.pdf.*not a PDF/);
  });

  it('notes an image too large for the API instead of sending it', () => {
    const big = Buffer.concat([JPEG, Buffer.alloc(6 * 1024 * 1024)]);
    const shown = blocks(file('huge.jpg', 'image/jpeg', big));
    expect(shown.some((block) => block.type === 'image')).toBe(false);
    expect(shown[0]?.text).toBe('File: /workspace/huge.jpg (image/jpeg, 6.0 MB)');
    expect(shown[1]?.text).toContain('cannot be shown to Claude');
  });

  it('gives binary data under a text name a one-line note, and keeps only notes of images in history', () => {
    const shown = fileBlocks({ files: [file('data.csv', 'text/csv', Buffer.from([1, 0, 2])), file('a.jpg', 'image/jpeg', JPEG)], notRead: [{ name: 'x.zip', reason: 'too big' }] });
    const texts = shown.map((block) => (block.type === 'text' ? block.text : block.type));
    expect(texts[0]).toBe('File: /workspace/data.csv (text/csv, 3 B)\nFile: /workspace/a.jpg (image/jpeg, 10 B)');
    expect(texts[1]).toContain('data.csv (text/csv, 3 B)] (not readable as text here');
    expect(texts.at(-1)).toBe('[File not read: x.zip: too big.]');
    expect(JSON.stringify(historyFileBlocks(shown))).not.toContain(JPEG.toString('base64'));
  });
});
