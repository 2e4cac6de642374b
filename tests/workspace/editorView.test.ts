// The editor's `view` as Claude meets it, through the real engine, sandbox and Anthropic fake (issue 36): an image a
// run wrote reaches Claude as an image block of its type, scaled down when over the API's bounds; a file that only
// looks like one by its name stays text; a folder view is bounded in characters and says how much it left out.
import { rm } from 'node:fs/promises';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { stepsBrain as steps, textReply, toolUseReply, type FakeAnthropic } from '../fakes/anthropic.ts';
import { type EngineHarness, startEngine } from '../lifecycle/engineHarness.ts';

let harness: EngineHarness | undefined;
afterEach(async () => {
  await harness?.close();
  if (harness !== undefined) await rm(harness.dir, { recursive: true, force: true });
  harness = undefined;
});

const say = (text: string) => ({ text });
const writeFile = (path: string, bytes: Buffer) => toolUseReply('bash', { command: `mkdir -p outputs && echo ${bytes.toString('base64')} | base64 -d > ${path} && echo written` }, say('Writing.'));
const view = (path: string) => toolUseReply('str_replace_based_edit_tool', { command: 'view', path }, say('Looking.'));

/** The image blocks of every tool result the fake was sent, in order (each result's blocks once). */
function imagesSent(fake: FakeAnthropic): Array<{ mediaType: string; data: Buffer }> {
  const seen = new Map<string, Array<{ mediaType: string; data: Buffer }>>();
  for (const request of fake.requests) {
    for (const message of request.body?.messages ?? []) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as Array<{ type: string; tool_use_id?: string; content?: unknown }>) {
        if (block.type !== 'tool_result' || !Array.isArray(block.content)) continue;
        const images = (block.content as Array<{ type: string; source?: { media_type: string; data: string } }>)
          .filter((part) => part.type === 'image')
          .map((part) => ({ mediaType: part.source!.media_type, data: Buffer.from(part.source!.data, 'base64') }));
        seen.set(block.tool_use_id ?? '', images);
      }
    }
  }
  return [...seen.values()].flat();
}

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } });

describe("the editor's view, as Claude sees it", () => {
  it('shows Claude a PNG, JPEG, GIF and WebP a run wrote, each as an image block of its own type', async () => {
    const files = {
      'outputs/a.png': await solid(40, 30).png().toBuffer(),
      'outputs/b.jpg': await solid(40, 30).jpeg().toBuffer(),
      'outputs/c.gif': await solid(40, 30).gif().toBuffer(),
      'outputs/d.webp': await solid(40, 30).webp().toBuffer(),
    };
    const seen: string[] = [];
    harness = await startEngine({ skills: [], answer: 'yes_once' });
    harness.fake.setBrain(steps([...Object.entries(files).map(([path, bytes]) => writeFile(path, bytes)), ...Object.keys(files).map((path) => view(`/workspace/${path}`)), textReply('A red rectangle.')], seen));
    const turn = await harness.say('draw me something and check it');
    expect(turn.reply).toMatch(/^A red rectangle\./);
    expect(seen.slice(0, 4)).toEqual(['written', 'written', 'written', 'written'].map((word) => expect.stringContaining(word)));
    // A run's result cannot carry the image; it says how to see it.
    expect(seen[0]).toContain('To look at an image it made (/workspace/outputs/a.png), view it with str_replace_based_edit_tool: you will see the image itself.');
    expect(seen[4]).toBe(`/workspace/outputs/a.png: PNG image, 40×30 pixels (${files['outputs/a.png'].byteLength} B).`);
    const images = imagesSent(harness.fake);
    expect(images.map((image) => image.mediaType)).toEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
    expect(images.map((image) => image.data)).toEqual(Object.values(files));
    expect(harness.fake.requests.every((request) => request.outcome === 'ok')).toBe(true);
    // The next turn's history keeps a note, not the images' bytes.
    harness.fake.setBrain(() => textReply('You are welcome.'));
    await harness.say('thanks');
    const history = JSON.stringify(harness.fake.requests.at(-1)?.body?.messages);
    expect(history).toContain('[The image was shown in this turn.]');
    expect(history).not.toContain('"type":"image"');
  }, 60_000);

  it('scales a larger image down to 1568 pixels on its long edge; a .png that is text stays text; other binary is refused', async () => {
    // A palette keeps the file small enough to pass through a shell command line.
    const big = await solid(4000, 3000).png({ palette: true, compressionLevel: 9 }).toBuffer();
    const seen: string[] = [];
    harness = await startEngine({ skills: [], answer: 'yes_once' });
    harness.fake.setBrain(
      steps([
        writeFile('outputs/big.png', big),
        writeFile('fake.png', Buffer.from('not an image\n')),
        writeFile('blob.bin', Buffer.from([0, 1, 2, 3])),
        view('/workspace/outputs/big.png'),
        view('/workspace/fake.png'),
        view('/workspace/blob.bin'),
        textReply('checked'),
      ], seen),
    );
    await harness.say('check them');
    expect(seen[0]).toContain('written');
    expect(seen[3]).toMatch(/^\/workspace\/outputs\/big\.png: PNG image, 1568×1176 pixels, scaled down from 4000×3000 \(\d+(\.\d)? K?B\)\.$/);
    const [image] = imagesSent(harness.fake);
    expect(image?.mediaType).toBe('image/png');
    expect(await sharp(image!.data).metadata()).toMatchObject({ width: 1568, height: 1176, format: 'png' });
    expect(seen[4]).toBe('1: not an image\n2: ');
    expect(seen[5]).toMatch(/^Error: \/workspace\/blob\.bin is a binary file/);
  }, 60_000);

  it('bounds a folder view in characters, says how many entries it left out, and names entries of a subfolder from it', async () => {
    const seen: string[] = [];
    harness = await startEngine({ skills: [], answer: 'yes_once' });
    const name = (i: number) => `${'n'.repeat(190)}-${String(i).padStart(4, '0')}.txt`;
    harness.fake.setBrain(
      steps([
        toolUseReply('bash', { command: `mkdir -p many/sub && cd many && for i in $(seq -w 0 499); do : > "${'n'.repeat(190)}-0$i.txt"; done; : > sub/inner.txt; echo made` }, say('Making files.')),
        view('/workspace/many'),
        view('/workspace/many/sub'),
        textReply('done'),
      ], seen),
    );
    await harness.say('list it');
    expect(seen[0]).toContain('made');
    const listing = seen[1]!;
    const lines = listing.split('\n');
    const last = lines.at(-1)!;
    expect(listing.length - last.length).toBeLessThanOrEqual(20_001);
    expect(lines[1]).toBe(`/workspace/many/${name(0)} (0 B)`);
    const shown = lines.slice(1, -1).length;
    // 501 entries: 500 files and sub/ with its one file; the view counts every one it did not name.
    expect(last).toBe(`… and ${502 - shown} more not shown (the view stops at 500 entries or 20,000 characters): view a subfolder, or use bash to search`);
    expect(shown).toBeLessThan(100);
    expect(seen[2]).toBe('Files and folders in /workspace/many/sub (two levels, hidden ones left out):\n/workspace/many/sub/inner.txt (0 B)');
  }, 60_000);
});
