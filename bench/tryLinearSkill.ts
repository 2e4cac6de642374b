// A try by hand, as a new user would (issue 26's closing note): openai/skills' `linear` skill, read from a fetched
// copy (never kept in the project), against our loopback stand-in for Linear's MCP server
// (tests/mcp/fixtures/linearStandIn.ts), in a Slack channel through the fakes, with a scripted model that behaves
// like Claude: a sentence, load_skill, then the skill's workflow (read first, then write) in several rounds. Every
// card is clicked by the person whose turn it is; each person's sign-in link is opened by their "browser".
// Prints what the CLI says of the skill before and after the server is configured, and what each step showed.
// Run: node --import tsx bench/tryLinearSkill.ts /path/to/openai-skills.git   (a clone or bare repository)
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slackLauncher } from '../adapters/slack/index.ts';
import { mountOAuthCallback } from '../src/mcp/oauthCallback.ts';
import { type Brain, type BrainRequest, lastToolResult, roundOf, startFakeAnthropic, textReply, toolUseReply } from '../tests/fakes/anthropic.ts';
import { freePort } from '../tests/fakes/freePort.ts';
import { type PostedMessage, SlackSender, startFakeSlack } from '../tests/fakes/slack.ts';
import { startLinearStandIn } from '../tests/mcp/fixtures/linearStandIn.ts';
import { createTestApp } from '../tests/platforms/app.ts';

const mirror = process.argv[2];
if (!mirror) throw new Error('usage: node --import tsx bench/tryLinearSkill.ts /path/to/openai-skills.git');
const CHANNEL = 'C0GENERAL';
const PEOPLE: Record<string, string> = { UALICE: 'alice', UBOB: 'bob' };
const say = (line: string) => console.log(line);
const short = (text: string, n = 300) => text.replace(/\s+/g, ' ').slice(0, n);

// The skill, copied out of the fetched repository into a skills root of this try only.
const dir = mkdtempSync(join(tmpdir(), 'skillbot-try-linear-'));
chmodSync(dir, 0o755);
const gitDir = (args: string[]) => execFileSync('git', ['--git-dir', mirror, ...args], { encoding: 'utf8' });
const skillPath = gitDir(['ls-tree', '-r', '--name-only', 'HEAD']).split('\n').find((path) => /(^|\/)linear\/SKILL\.md$/.test(path));
if (skillPath === undefined) throw new Error('no linear/SKILL.md in that repository');
mkdirSync(join(dir, 'skills', 'linear'), { recursive: true });
writeFileSync(join(dir, 'skills', 'linear', 'SKILL.md'), gitDir(['show', `HEAD:${skillPath}`]));
say(`skill: ${skillPath} at ${gitDir(['rev-parse', '--short', 'HEAD']).trim()}`);

const linear = await startLinearStandIn();
const slack = await startFakeSlack();
const anthropic = await startFakeAnthropic();
const world = `slack:${slack.info.teamId}:${CHANNEL}`;
const port = await freePort();
const config = join(dir, 'skillbot.yaml');

/** The CLI as an operator runs it, with this try's settings. */
async function cli(args: string[], env: Record<string, string>): Promise<string> {
  try {
    // Not execFileSync: the stand-in answers from this process.
    return (await promisify(execFile)(process.execPath, ['bin/skillbot.mjs', ...args], { encoding: 'utf8', env: { ...process.env, SKILLS_DIRS: join(dir, 'skills'), STORE_URL: 'memory://', ...env } })).stdout;
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}
const needsLine = (out: string) => out.split('\n').filter((line) => /mcp needs|mcp_server_missing|mcp:|linear/.test(line) && !line.startsWith('linear  ')).map((line) => `    ${short(line, 240)}`).join('\n');
say('[cli] before any MCP server is configured:');
say(`  skills validate:\n${needsLine(await cli(['skills', 'validate', join(dir, 'skills')], {})) || '    (nothing about MCP)'}`);
say(`  doctor:\n${needsLine(await cli(['doctor'], {})) || '    (nothing about MCP)'}`);
writeFileSync(config, `mcpServers:\n  linear: { type: http, url: "${linear.url}" }\nworlds:\n  '${world}': { mcp: [linear] }\n`);
say('[cli] with mcpServers.linear and the channel\'s mcp: [linear]:');
say(`  skills validate:\n${needsLine(await cli(['skills', 'validate', join(dir, 'skills')], { SKILLBOT_CONFIG: config })) || '    (nothing about MCP)'}`);
say(`  doctor:\n${needsLine(await cli(['doctor'], { SKILLBOT_CONFIG: config })) || '    (nothing about MCP)'}`);
say(`  mcp list:\n${(await cli(['mcp', 'list'], { SKILLBOT_CONFIG: config })).trimEnd().split('\n').map((line) => `    ${short(line, 240)}`).join('\n')}`);

const { app, http } = await createTestApp(
  { anthropic, skillsRoot: join(dir, 'skills'), env: { SKILLBOT_CONFIG: config, PUBLIC_URL: `http://127.0.0.1:${port}`, APPROVAL_TIMEOUT_MS: '60000' } },
  { SLACK_BOT_TOKEN: slack.info.botToken, SLACK_SIGNING_SECRET: 'try-signing-secret-0123456789', SLACK_API_URL: slack.apiUrl },
);
mountOAuthCallback(http, app.mcp!.signIns);
const running = await slackLauncher.start(app.core, http);
app.dispatcher.start();
await http.listen(port, '127.0.0.1');
const sender = new SlackSender(`http://127.0.0.1:${port}/slack/events`, 'try-signing-secret-0123456789', slack.info);

// Each person's "browser": opens the private link they get, signs in to the stand-in as themselves.
const opened = new Set<unknown>();
const browser = setInterval(() => {
  for (const note of slack.ephemerals) {
    if (opened.has(note)) continue;
    opened.add(note);
    say(`  (privately to ${note.user}: ${short(note.text, 160)})`);
    // Slack shows `&amp;` as `&`.
    const link = /https?:\/\/\S+/.exec(note.text)?.[0]?.replaceAll('&amp;', '&');
    if (link === undefined || !link.includes('/authorize')) continue;
    void (async () => {
      const authorize = await fetch(`${link}&login=${PEOPLE[note.user] ?? 'nobody'}`, { redirect: 'manual' });
      const page = await fetch(authorize.headers.get('location') ?? '');
      say(`  (${note.user}'s browser: ${page.status} ${short((await page.text()).replace(/<[^>]+>/g, ' '), 120)})`);
    })();
  }
}, 50);

const idOf = (card: PostedMessage) => /"block_id":"hitl:([^"]+)"/.exec(JSON.stringify(card.blocks))?.[1] ?? '';
const clicked = new Set<string>();
const sectionText = (card: PostedMessage, index: number) => (card.blocks as Array<{ text?: { text?: string } }> | undefined)?.[index]?.text?.text ?? '';

/** Answers every new card in the thread as `user` (the option `pick` gives) until `done` finds something. */
async function answerUntil<T>(ts: string, user: string, pick: (card: string) => string, done: () => T | undefined, ms = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const found = done();
    if (found !== undefined) return found;
    for (const card of slack.thread(CHANNEL, ts).filter((m) => JSON.stringify(m.blocks ?? []).includes('"hitl_'))) {
      const id = idOf(card);
      if (id === '' || clicked.has(id)) continue;
      clicked.add(id);
      const option = pick(sectionText(card, 0));
      say(`  card: ${sectionText(card, 0)}\n    ${sectionText(card, 1).split('\n').join('\n    ')}\n    -> ${user} clicks ${option}`);
      await sender.click({ user, channel: CHANNEL, messageTs: card.ts, threadTs: card.threadTs ?? ts, actionId: `hitl_${option}`, value: id });
    }
    if (Date.now() - started > ms) throw new Error(`timed out in thread ${ts}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

type Call = { tool: string; input: Record<string, unknown> | ((results: string[]) => Record<string, unknown>); before: string };
const mcpNames = (req: BrainRequest) => req.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp__') || name.endsWith('_mcp_tool') || name === 'find_mcp_tools');

/**
 * Claude, scripted: a sentence and load_skill, then the skill's calls in order, as `mcp__linear__<tool>` (what the
 * skill's bare `list_issues` is here) when offered; when only `mcp__linear__connect` is, that first.
 */
function claude(label: string, calls: Call[], finish: (results: string[]) => string): Brain {
  const results: string[] = [];
  let plan: Array<Call | 'connect'> | undefined;
  let started = false;
  return (req) => {
    const round = roundOf(req);
    const result = lastToolResult(req);
    if (round === 0) {
      plan = undefined;
      started = false;
      say(`  [${label}] MCP tools offered: ${mcpNames(req).join(', ') || 'none'}`);
      return toolUseReply('load_skill', { skill_id: 'linear' }, { text: 'I\'ll use the Linear skill for this.' });
    }
    if (result !== undefined) {
      results.push(result.content);
      const directive = /<execution_directive>([\s\S]*?)<\/execution_directive>/.exec(result.content)?.[1];
      say(`  [${label} round ${round}] ${result.isError ? 'ERROR ' : ''}${directive === undefined ? short(result.content) : `(skill loaded) directive: ${short(directive, 600)}`}`);
    }
    const offered = new Set(req.tools.map((tool) => tool.name));
    const ready = offered.has('mcp__linear__list_teams');
    // Connected mid-turn: the server's tools are here now, so the work starts.
    if (plan !== undefined && plan.length === 0 && ready && !started) plan = [...calls];
    plan ??= ready ? [...calls] : offered.has('mcp__linear__connect') ? ['connect'] : [];
    if (ready) started = true;
    const next = plan.shift();
    if (next === undefined) return textReply(finish(results));
    if (next === 'connect') return toolUseReply('mcp__linear__connect', {}, { text: 'Linear is not connected for you yet; connecting it.' });
    return toolUseReply(`mcp__linear__${next.tool}`, typeof next.input === 'function' ? next.input(results) : next.input, { text: next.before });
  };
}

/** `user` writes in the thread `root` (a new thread when undefined); every card is answered by `user`. */
async function turn(user: string, words: string, root: string | undefined, brain: Brain, marker: string, pick: (card: string) => string = () => 'yes_once'): Promise<string> {
  anthropic.setBrain(brain);
  const ts = sender.nextTs();
  await sender.mention({ channel: CHANNEL, user, ts, text: `<@${slack.info.botUserId}> ${words}`, ...(root === undefined ? {} : { threadTs: root }) });
  const thread = root ?? ts;
  const answer = await answerUntil(thread, user, pick, () => slack.thread(CHANNEL, thread).find((m) => m.text.includes(marker) && !m.text.endsWith('…')));
  say(`  answer: ${short(answer.text, 400)}`);
  return thread;
}

const created = (results: string[]) => /"identifier": "([A-Z]+-\d+)"/.exec(results.find((r) => r.includes('"creator"') && r.includes('Checkout page times out')) ?? '')?.[1] ?? 'ENG-?';
const bugCalls: Call[] = [
  { tool: 'list_teams', input: {}, before: 'First, the team.' },
  { tool: 'list_issue_labels', input: { team: 'ENG' }, before: 'And the labels.' },
  { tool: 'create_issue', input: { title: 'Checkout page times out on slow networks', team: 'ENG', description: 'On a throttled 3G profile the checkout page spins for 30 s, then shows a timeout.\n\nSteps:\n1. Throttle to Slow 3G\n2. Open /checkout', priority: 2, assignee: 'me', labels: ['Bug'] }, before: 'Creating the issue.' },
  { tool: 'list_issues', input: { team: 'ENG', state: 'Todo' }, before: 'Now what is open for Engineering.' },
  { tool: 'list_issues', input: { team: 'ENG', state: 'In Progress' }, before: 'And in progress.' },
];

try {
  say('[slack] Alice, new thread: file a bug and list what is open');
  const ask = 'File a bug for Engineering in Linear: the checkout page times out on slow networks. High priority, assign it to me. Then show me what is open for Engineering.';
  const thread = await turn('UALICE', ask, undefined, claude('alice', bugCalls, (r) => `DONE-1: filed ${created(r)}`), 'DONE-1', (card) => (card.includes('list_issues') ? 'yes_in_session' : 'yes_once'));
  const issue = linear.tracker.issues.find((one) => one.title.startsWith('Checkout page times out'));
  say(`  tracker: ${issue === undefined ? 'no issue was created' : `${issue.identifier} by ${linear.tracker.people.find((p) => p.id === issue.creator)?.login}, assigned to ${linear.tracker.people.find((p) => p.id === issue.assignee)?.login}, priority ${issue.priority}`}`);
  say('[slack] Bob, same thread: comment on it and move it to In Progress');
  const id = issue?.identifier ?? 'ENG-3';
  await turn('UBOB', `I can reproduce ${id} on Firefox too, add that as a comment and move it to In Progress.`, thread, claude('bob', [
    { tool: 'get_issue', input: { id }, before: 'Looking at the issue.' },
    { tool: 'create_comment', input: { issueId: id, body: 'Reproduced on Firefox 133 with Slow 3G as well.' }, before: 'Commenting.' },
    { tool: 'update_issue', input: { id, state: 'In Progress' }, before: 'Moving it.' },
  ], (r) => `DONE-3: ${short(r.at(-1) ?? '', 160)}`), 'DONE-3');
  say(`  tracker: comments ${JSON.stringify(linear.tracker.comments.map((c) => ({ by: linear.tracker.people.find((p) => p.id === c.author)?.login, body: c.body })))}`);
  say(`  stand-in saw: ${linear.calls.map((call) => `${call.tool}@${call.login}`).join(', ')}`);
} finally {
  clearInterval(browser);
  await app.dispatcher.stop(1000);
  await running.stop();
  await http.close();
  await app.close();
  await slack.close();
  await anthropic.close();
  await linear.close();
  rmSync(dir, { recursive: true, force: true });
}
