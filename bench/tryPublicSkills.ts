// A try by hand, as a new user would (issue 29's closing note): anthropics/skills served from a fetched copy on the
// loopback git server the tests use; its pdf skill installed in a Slack thread through the fakes, then the PDF form
// workflow (check_fillable_fields, extract_form_field_info, fill_fillable_fields) run by a scripted model in another
// thread with every approval clicked; then skill-creator installed, a skill packaged with its package script in a
// thread, and the `.skill` it produced installed by sharing it in that thread. Prints what happened at each step.
// Nothing third-party is in the project: the copy is read from the path given. Not a test (CI has no copy).
// Run: node --import tsx bench/tryPublicSkills.ts /path/to/anthropics-skills.git   (a clone or bare repository)
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slackLauncher } from '../adapters/slack/index.ts';
import { type BrainReply, lastToolResult, roundOf, startFakeAnthropic, textReply, toolUseReply } from '../tests/fakes/anthropic.ts';
import { startFakeGitServer } from '../tests/fakes/gitServer.ts';
import { type PostedMessage, SlackSender, startFakeSlack } from '../tests/fakes/slack.ts';
import { createTestApp } from '../tests/platforms/app.ts';

const mirror = process.argv[2];
if (!mirror) throw new Error('usage: node --import tsx bench/tryPublicSkills.ts /path/to/anthropics-skills.git');
const CHANNEL = 'C0GENERAL';
const ALICE = 'UALICE';
const BOB = 'UBOB';
const say = (line: string) => console.log(line);
// Debian's, with its pypdf and reportlab (a python3 earlier on PATH, pyenv's say, may have neither).
const PYTHON = '/usr/bin/python3';

const dir = mkdtempSync(join(tmpdir(), 'skillbot-try-'));
chmodSync(dir, 0o755);
const git = await startFakeGitServer();
execFileSync('git', ['clone', '-q', mirror, join(git.root, 'anthropics', 'skills')]);
const slack = await startFakeSlack();
const anthropic = await startFakeAnthropic();
const world = `slack:${slack.info.teamId}:${CHANNEL}`;
mkdirSync(join(dir, 'skills'));
writeFileSync(join(dir, 'config.yaml'), `worlds:\n  ${world}:\n    installers: [${BOB}]\n`);
const { app, http } = await createTestApp(
  { anthropic, skillsRoot: join(dir, 'skills'), env: { SKILLBOT_CONFIG: join(dir, 'config.yaml'), INSTALL_GITHUB_URL: git.url, INSTALLED_SKILLS_DIR: join(dir, 'installed'), SCRIPT_TIMEOUT_MS: '120000' } },
  { SLACK_BOT_TOKEN: slack.info.botToken, SLACK_SIGNING_SECRET: 'try-signing-secret-0123456789', SLACK_API_URL: slack.apiUrl },
);
const running = await slackLauncher.start(app, http);
app.dispatcher.start();
const port = await http.listen(0, '127.0.0.1');
const sender = new SlackSender(`http://127.0.0.1:${port}/slack/events`, 'try-signing-secret-0123456789', slack.info);

const cardsIn = (ts: string) => slack.thread(CHANNEL, ts).filter((m) => JSON.stringify(m.blocks ?? []).includes('"hitl_'));
const idOf = (card: PostedMessage) => /"block_id":"hitl:([^"]+)"/.exec(JSON.stringify(card.blocks))?.[1] ?? '';
const clicked = new Set<string>();

/** Clicks "Yes, once" as `user` on every card of the thread until `done` says so; returns what `done` found. */
async function approveUntil<T>(ts: string, user: string, done: () => T | undefined, ms = 180_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const found = done();
    if (found !== undefined) return found;
    for (const card of cardsIn(ts)) {
      const id = idOf(card);
      if (id === '' || clicked.has(id)) continue;
      clicked.add(id);
      const body = /```([\s\S]*?)```/.exec((card.blocks as Array<{ text?: { text?: string } }> | undefined)?.[1]?.text?.text ?? '')?.[1] ?? '';
      say(`  card: ${card.text.replace('Approval needed: ', '')}${body ? `\n    ${body.split('\n').slice(0, 4).join('\n    ')}` : ''}`);
      await sender.click({ user, channel: CHANNEL, messageTs: card.ts, threadTs: card.threadTs ?? ts, actionId: 'hitl_yes_once', value: id });
    }
    if (Date.now() - started > ms) throw new Error(`timed out in thread ${ts}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const replyStarting = (ts: string, start: string) => () => slack.thread(CHANNEL, ts).find((m) => m.text.startsWith(start) || m.text.startsWith('Not installed') || m.text.startsWith('Cannot install'));

async function install(skill: string): Promise<boolean> {
  await sender.command('/skills', `install github:anthropics/skills --skill ${skill}`, { channel: CHANNEL, user: ALICE });
  const root = await slack.waitFor(() => slack.messages.find((m) => m.threadTs === undefined && m.text.includes(`(only \`${skill}\`)`)), { what: `the root of ${skill}`, timeoutMs: 60_000 });
  const card = await slack.waitFor(() => cardsIn(root.ts)[0], { what: `the card of ${skill}`, timeoutMs: 120_000 });
  const attached = slack.uploads.find((u) => u.name === `approval-${idOf(card)}.txt`);
  const body = attached?.bytes.toString('utf8') ?? (card.blocks as Array<{ text?: { text?: string } }> | undefined)?.[1]?.text?.text ?? '';
  const line = (start: string) => body.split('\n').find((l) => l.trimStart().startsWith(start))?.trim() ?? '?';
  say(`[install ${skill}] card: ${line('Picked')}; ${line('Scanner:')}; ${line('scripts')}`);
  const missing = /host dependencies missing:([^]*?)\n\n/.exec(body)?.[1]?.replace(/\s+/g, ' ').trim();
  if (missing) say(`  host dependencies missing: ${missing}`);
  const result = await approveUntil(root.ts, BOB, replyStarting(root.ts, `Installed ${skill}`));
  say(`  -> ${result.text.split('\n')[0]}`);
  for (const note of slack.ephemerals) say(`  (privately to ${note.user}: ${note.text})`);
  return result.text.startsWith('Installed');
}

/** A turn in a new thread driven by `steps` (one per tool round); every result the model reads is printed. */
async function turn(label: string, words: string, steps: Array<BrainReply | ((results: string[]) => BrainReply)>, files: Array<Record<string, unknown>> = []): Promise<string> {
  const results: string[] = [];
  anthropic.setBrain((req) => {
    const round = roundOf(req);
    const result = lastToolResult(req);
    if (result !== undefined && round > 0) {
      results.push(result.content);
      say(`  [${label} round ${round}] ${result.isError ? 'ERROR ' : ''}${result.content.replace(/\s+/g, ' ').slice(0, 600)}`);
    }
    const step = steps[round];
    if (step === undefined) return textReply('(done)');
    return typeof step === 'function' ? step(results) : step;
  });
  const ts = sender.nextTs();
  await sender.mention({ channel: CHANNEL, user: ALICE, ts, text: `<@${slack.info.botUserId}> ${words}`, files });
  await approveUntil(ts, ALICE, () => slack.thread(CHANNEL, ts).find((m) => m.text.startsWith('DONE') || m.text.includes('(done)')));
  return ts;
}

try {
  // 1. The pdf skill.
  if (!(await install('pdf'))) throw new Error('pdf did not install');

  // 2. A fillable form (reportlab on the host, as someone's form would be), filled in a thread.
  const form = join(dir, 'form.pdf');
  execFileSync(PYTHON, ['-c', [
    'import sys',
    'from reportlab.pdfgen import canvas',
    'c = canvas.Canvas(sys.argv[1])',
    'c.drawString(72, 760, "Name:")',
    'c.acroForm.textfield(name="full_name", x=130, y=750, width=250, height=20)',
    'c.drawString(72, 720, "I agree:")',
    'c.acroForm.checkbox(name="agree", x=130, y=712, size=16)',
    'c.save()',
  ].join('\n'), form]);
  const pdf = slack.shareFile({ name: 'form.pdf', mimetype: 'application/pdf', bytes: readFileSync(form) });
  const run = (script: string, args: string[], files?: Record<string, string>) => toolUseReply('run_skill_script', { skill_id: 'pdf', script, args, ...(files ? { files } : {}) });
  const formThread = await turn('pdf', 'Fill in this form: name Ada Lovelace, and tick that I agree.', [
    toolUseReply('load_skill', { skill_id: 'pdf' }),
    run('scripts/check_fillable_fields.py', ['form.pdf']),
    run('scripts/extract_form_field_info.py', ['form.pdf', 'field_info.json']),
    (results) => {
      const json = /(\[\s*\{[\s\S]*\}\s*\])/.exec(results.at(-1) ?? '')?.[1];
      let fields: Array<{ field_id: string; page: number; type: string; checked_value?: string }> = [];
      try {
        fields = JSON.parse(json ?? '[]');
      } catch {
        say('  (the model could not read field_info.json from the result)');
      }
      const values = fields.map((f) => ({ field_id: f.field_id, page: f.page, value: f.type === 'checkbox' ? (f.checked_value ?? '/Yes') : 'Ada Lovelace' }));
      return run('scripts/fill_fillable_fields.py', ['form.pdf', 'field_values.json', 'outputs/filled.pdf'], { 'field_values.json': JSON.stringify(values, null, 2) });
    },
    textReply('DONE: the form is filled.'),
  ], [pdf]);
  const filled = slack.uploads.find((u) => u.name === 'filled.pdf' && u.threadTs === formThread);
  if (filled === undefined) say('[pdf] no filled.pdf reached the thread');
  else {
    writeFileSync(join(dir, 'filled.pdf'), filled.bytes);
    const read = execFileSync(PYTHON, ['-c', 'import sys; from pypdf import PdfReader; print({k: v.get("/V") for k, v in (PdfReader(sys.argv[1]).get_fields() or {}).items()})', join(dir, 'filled.pdf')], { encoding: 'utf8' });
    say(`[pdf] filled.pdf reached the thread (${filled.bytes.length} bytes); its fields read back as ${read.trim()}`);
  }

  // 3. skill-creator: package a skill in a thread, then install the .skill it produced from that thread.
  if (!(await install('skill-creator'))) throw new Error('skill-creator did not install');
  const skillMd = '---\nname: hello-world\ndescription: Says hello to the person, warmly and by name.\n---\n\n# Hello\n\nGreet the person by name.\n';
  const packThread = await turn('skill-creator', 'Make me a tiny hello-world skill and package it as a .skill file.', [
    toolUseReply('load_skill', { skill_id: 'skill-creator' }),
    toolUseReply('str_replace_based_edit_tool', { command: 'create', path: '/workspace/hello-world/SKILL.md', file_text: skillMd }),
    // What a model reading "python -m scripts.package_skill" might try first through run_skill_script...
    toolUseReply('run_skill_script', { skill_id: 'skill-creator', script: 'scripts/package_skill.py', args: ['hello-world', 'outputs'] }),
    // ...and what SKILL.md says, through the shell.
    toolUseReply('bash', { command: 'cd /skills/skill-creator && python3 -m scripts.package_skill /workspace/hello-world /workspace/outputs' }),
    textReply('DONE: packaged.'),
  ]);
  const packaged = slack.uploads.find((u) => u.name.endsWith('.skill') && u.threadTs === packThread);
  if (packaged === undefined) say('[skill-creator] no .skill reached the thread');
  else {
    say(`[skill-creator] ${packaged.name} reached the thread (${packaged.bytes.length} bytes); installing it from there`);
    const shared = slack.shareFile({ name: packaged.name, mimetype: 'application/zip', bytes: packaged.bytes });
    await sender.mention({ channel: CHANNEL, user: ALICE, ts: sender.nextTs(), threadTs: packThread, text: `<@${slack.info.botUserId}> skills install`, files: [shared] });
    const done = await approveUntil(packThread, BOB, replyStarting(packThread, 'Installed hello-world'));
    say(`  -> ${done.text.split('\n')[0]}`);
    say(`  hello-world usable in the channel: ${app.engine.invocableSkills(world).some((s) => s.id === 'hello-world')}`);
  }
} finally {
  await app.dispatcher.stop(1000);
  await running.stop();
  await http.close();
  await app.close();
  await slack.close();
  await anthropic.close();
  await git.close();
  rmSync(dir, { recursive: true, force: true });
}
