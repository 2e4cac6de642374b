// The same try in the terminal chat, as a new user starts it: `npm start` on a terminal (a pseudo-terminal made by
// util-linux `script`), openai/skills' `linear` skill from a fetched copy in a skills folder of this try, and
// SKILLBOT_CONFIG naming our Linear stand-in (tests/mcp/fixtures/linearStandIn.ts). The model is the Anthropic
// fake with a scripted, Claude-like brain; the person types the request, opens the printed sign-in link (their
// "browser" adds the stand-in's `login`), and types 1 at each card. Prints the screen.
// Run: node --import tsx bench/tryLinearTerminal.ts /path/to/openai-skills.git
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrainReply, lastToolResult, roundOf, startFakeAnthropic, textReply, toolUseReply } from '../tests/fakes/anthropic.ts';
import { freePort } from '../tests/fakes/freePort.ts';
import { startLinearStandIn } from '../tests/mcp/fixtures/linearStandIn.ts';

const mirror = process.argv[2];
if (!mirror) throw new Error('usage: node --import tsx bench/tryLinearTerminal.ts /path/to/openai-skills.git');
const dir = mkdtempSync(join(tmpdir(), 'skillbot-try-linear-tty-'));
chmodSync(dir, 0o755);
const gitDir = (args: string[]) => execFileSync('git', ['--git-dir', mirror, ...args], { encoding: 'utf8' });
const skillPath = gitDir(['ls-tree', '-r', '--name-only', 'HEAD']).split('\n').find((path) => /(^|\/)linear\/SKILL\.md$/.test(path))!;
mkdirSync(join(dir, 'skills', 'linear'), { recursive: true });
writeFileSync(join(dir, 'skills', 'linear', 'SKILL.md'), gitDir(['show', `HEAD:${skillPath}`]));

const linear = await startLinearStandIn();
const anthropic = await startFakeAnthropic();
const port = await freePort();
writeFileSync(join(dir, 'skillbot.yaml'), `mcpServers:\n  linear: { type: http, url: "${linear.url}" }\nworlds:\n  'terminal:local': { mcp: [linear] }\n`);

// Claude, scripted: load the skill; connect when that is all it has; else read, write, read.
const steps: BrainReply[] = [
  toolUseReply('mcp__linear__list_teams', {}, { text: 'Checking the teams first.' }),
  toolUseReply('mcp__linear__create_issue', { title: 'Export to CSV drops the last row', team: 'ENG', priority: 2, labels: ['Bug'] }, { text: 'Filing the bug.' }),
  toolUseReply('mcp__linear__list_my_issues', {}, { text: 'And your open issues.' }),
];
let firstReady = 0;
anthropic.setBrain((req) => {
  const round = roundOf(req);
  if (round === 0) return toolUseReply('load_skill', { skill_id: 'linear' }, { text: 'I\'ll use the Linear skill.' });
  const offered = new Set(req.tools.map((tool) => tool.name));
  if (!offered.has('mcp__linear__list_teams')) {
    firstReady = 0;
    return round === 1 ? toolUseReply('mcp__linear__connect', {}, { text: 'Connecting your Linear account.' }) : textReply(`(model read: ${lastToolResult(req)?.content.slice(0, 160)})`);
  }
  if (firstReady === 0) {
    firstReady = round;
    if (round > 1) console.log(`[model] round ${round}: read "${lastToolResult(req)?.content.slice(0, 200)}"`);
  }
  return steps[round - firstReady] ?? textReply(`Filed it. (model read: ${lastToolResult(req)?.content.replace(/\s+/g, ' ').slice(0, 160)})`);
});

const env = {
  ...process.env,
  ANTHROPIC_API_KEY: 'try-key',
  ANTHROPIC_BASE_URL: anthropic.url,
  SKILLS_DIRS: join(dir, 'skills'),
  SKILLBOT_CONFIG: join(dir, 'skillbot.yaml'),
  STORE_URL: `sqlite://${join(dir, 'state.sqlite')}`,
  WORKSPACES_DIR: join(dir, 'workspaces'),
  OUTPUTS_DIR: join(dir, 'outputs'),
  PORT: String(port),
  HOST: '127.0.0.1',
};
const child = spawn('script', ['-qfec', 'npm start', '/dev/null'], { env, cwd: join(import.meta.dirname, '..'), stdio: ['pipe', 'pipe', 'pipe'] });
let screen = '';
child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
const CSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');
const plain = () => screen.replace(CSI, '').replace(/\r/g, '');
async function waitFor(test: RegExp, ms = 60_000): Promise<RegExpExecArray> {
  for (const started = Date.now(); Date.now() - started < ms; ) {
    const found = test.exec(plain());
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never saw ${test}:\n${plain().slice(-2000)}`);
}
const type = (line: string) => child.stdin.write(`${line}\n`);
let prompts = 0;
const nextPrompt = async () => {
  prompts++;
  await waitFor(new RegExp(`(?:you>[\\s\\S]*){${prompts}}`));
};

try {
  await nextPrompt();
  type('File a bug for Engineering in Linear: export to CSV drops the last row. High priority.');
  const link = (await waitFor(/(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/))[1]!;
  const authorize = await fetch(`${link}&login=alice`, { redirect: 'manual' });
  const callback = authorize.headers.get('location') ?? '';
  console.log(`[browser] redirected to ${callback.replace(/\?.*/, '?…')}: ${(await fetch(callback)).status}`);
  for (let card = 0; card < steps.length; card++) {
    await waitFor(new RegExp(`(?:\\[default: No\\][\\s\\S]*){${card + 1}}`));
    type('1');
  }
  await waitFor(/Filed it\./);
  await nextPrompt();
  type('/quit');
  await new Promise((resolve) => child.once('exit', resolve));
} finally {
  console.log(plain());
  console.log(`[stand-in] saw: ${linear.calls.map((call) => `${call.tool}@${call.login}`).join(', ')}`);
  child.kill();
  await anthropic.close();
  await linear.close();
  rmSync(dir, { recursive: true, force: true });
}
