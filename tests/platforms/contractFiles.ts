// The contract's file scenarios: what a person attaches reaches the model and skill scripts, what a script
// writes to SKILLBOT_OUTPUT_DIR is posted into the conversation, and a file past a bound is reported, never
// dropped in silence. The bounds are the contract's FILE_BOUNDS (2,000 bytes each way).
import { expect, it } from 'vitest';
import { lastToolResult, type RequestMessage, textReply, toolUseReply } from '../fakes/anthropic.ts';
import type { ContractContext } from './contract.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const CSV = 'region,sales\nnorth,120\nsouth,80\neast,200\n';
/** 40 rows: small to send, but csv-summary draws a chart of them past the output bound. */
const VISITS_CSV = ['city,visits', ...Array.from({ length: 40 }, (_, i) => `city${i},${((i * 7) % 50) + 1}`)].join('\n');

type Block = { type: string; text?: string; source?: { media_type?: string; data?: string } };
const blocksOf = (message: RequestMessage | undefined): Block[] => (typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : ((message?.content ?? []) as Block[]));

/** The model runs csv-summary on the person's files, keeps what the run reported, then answers `answer`. */
function summarizeBrain(ctx: ContractContext, answer: string): { result: () => string } {
  let result = '';
  ctx.anthropic.setBrain((req) => {
    const tool = lastToolResult(req);
    if (!tool) return toolUseReply('run_skill_script', { skill_id: 'csv-summary', script: 'scripts/summarize.py' });
    result = tool.content;
    return textReply(answer);
  });
  return { result: () => result };
}

export function fileScenarios(ctx: ContractContext): void {
  it('an image and a CSV a person attaches reach the model with the question; later turns keep a note of the image, not its bytes', async () => {
    let seen: Block[] = [];
    ctx.anthropic.setBrain((req) => {
      seen = blocksOf(req.messages.at(-1));
      return textReply('I read them');
    });
    const chat = await ctx.driver.mention('alice', 'what do these say?', [
      { name: 'screen.png', type: 'image/png', bytes: PNG },
      { name: 'sales.csv', type: 'text/csv', bytes: CSV },
    ]);
    await chat.waitForAnswer('I read them');
    expect(seen.find((block) => block.type === 'image')?.source).toMatchObject({ media_type: 'image/png', data: PNG.toString('base64') });
    expect(seen.find((block) => block.type === 'text' && block.text?.includes('north,120'))?.text).toContain('sales.csv');
    expect(seen.at(-1)).toMatchObject({ type: 'text', text: 'what do these say?' });

    ctx.anthropic.setBrain((req) => textReply(JSON.stringify(req.messages).includes(PNG.toString('base64')) ? 'bytes kept' : 'note kept'));
    await chat.say('alice', 'thanks');
    await chat.waitForAnswer('note kept');
  });

  it('a file over the size bound is not read, and the person and the model are told which and why', async () => {
    let seen: Block[] = [];
    ctx.anthropic.setBrain((req) => {
      seen = blocksOf(req.messages.at(-1));
      return textReply('answered');
    });
    const chat = await ctx.driver.mention('alice', 'sum this', [{ name: 'big.csv', type: 'text/csv', bytes: 'x,y\n'.repeat(600) }]);
    await chat.waitForAnswer(/^answered[\s\S]*I did not read big\.csv: it is 2\.3 KB, over the 2\.0 KB limit/);
    expect(seen.some((block) => block.text?.includes('File not read: big.csv'))).toBe(true);
    expect(JSON.stringify(seen)).not.toContain('x,y');
  });

  it("a skill script reads the person's file, and the files it writes are posted into the conversation, naming the skill", async () => {
    const run = summarizeBrain(ctx, 'Sales total 400; the chart is in the thread.');
    const chat = await ctx.driver.mention('alice', 'summarise this and chart it', [{ name: 'sales.csv', type: 'text/csv', bytes: CSV }]);
    const question = await chat.waitForQuestion();
    // What the person approves says what the script will read.
    expect(question.text()).toContain('sales.csv');
    await question.click('alice', 'yes_once');
    await chat.waitForAnswer('Sales total 400; the chart is in the thread.');

    const files = chat.uploadedFiles();
    expect(files.map((file) => file.name).sort()).toEqual(['sales-chart.svg', 'sales-summary.md']);
    expect(files.find((file) => file.name === 'sales-summary.md')?.text).toContain('| sales | 3 | 400 | 133.33 | 80 | 200 |');
    expect(files.find((file) => file.name === 'sales-chart.svg')?.text).toContain('<svg');
    for (const file of files) expect(file.caption).toContain('csv-summary');
    expect(run.result()).toContain('sales: count 3, sum 400');
    expect(run.result()).toContain('Delivered to the chat: sales-chart.svg');
  });

  it('a file the script writes over the bound is reported to the person and the model, and the rest is still posted', async () => {
    const run = summarizeBrain(ctx, 'done with bounds');
    const chat = await ctx.driver.mention('alice', 'chart the visits', [{ name: 'visits.csv', type: 'text/csv', bytes: VISITS_CSV }]);
    const question = await chat.waitForQuestion();
    await question.click('alice', 'yes_once');
    await chat.waitForAnswer(/^done with bounds[\s\S]*Not delivered: visits-chart\.svg is [\d.]+ KB, over the 2\.0 KB limit/);
    expect(chat.uploadedFiles().map((file) => file.name)).toEqual(['visits-summary.md']);
    expect(run.result()).toMatch(/Not delivered: visits-chart\.svg is [\d.]+ KB, over the 2\.0 KB limit; it stays in the workspace\./);
    expect(run.result()).toContain('Delivered to the chat: visits-summary.md');
  });
}
