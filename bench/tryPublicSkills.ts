// A try by hand, as a new user would (issue 29's closing note): fetched copies of anthropics/skills and, when given,
// obra/superpowers served from the loopback git server the tests use, a bot on the Slack fake, a scripted model.
// 1. pdf installed by a mention in a thread, then in that thread a fillable form and a form without fields filled
//    (bench/try/pdfForms.ts); 2. superpowers asked for whole: its card (skills, scripts, hooks, findings) printed,
//    two skills picked, installed, one loaded in the thread; 3. skill-creator installed, a skill packaged through the
//    shell in a thread, and the `.skill` it produced installed by sharing it there. Every card is approved.
// Nothing third-party is in the project: the copies are read from the paths given. Not a test (CI has no copy).
// Run: node --import tsx bench/tryPublicSkills.ts ANTHROPIC_SKILLS [SUPERPOWERS]   (clones or bare repositories)
// The cards' whole texts are left in the temporary folder as try-*-card.txt, the pdf's page images as try-*.png.
import { join } from 'node:path';
import { textReply, toolUseReply } from '../tests/fakes/anthropic.ts';
import { ALICE, BOB, CHANNEL, say, startTry, type Try } from './try/harness.ts';
import { tryPdf } from './try/pdfForms.ts';

const [anthropicSkills, superpowers] = process.argv.slice(2);
if (!anthropicSkills) throw new Error('usage: node --import tsx bench/tryPublicSkills.ts ANTHROPIC_SKILLS [SUPERPOWERS]');

async function trySuperpowers(t: Try): Promise<void> {
  await t.sender.command('/skills', 'install github:obra/superpowers', { channel: CHANNEL, user: ALICE });
  const root = await t.slack.waitFor(() => t.slack.messages.find((m) => m.threadTs === undefined && m.text.includes('`github:obra/superpowers`')), { what: 'the root of superpowers', timeoutMs: 60_000 });
  const saved = join(t.dir, '..', 'try-superpowers-card.txt');
  const first = await t.nextCard(root.ts, '0', saved);
  t.sayCard('install superpowers (whole)', first.text);
  const findings = first.text.split('\n').filter((l) => /^\s*(Scanner|•|-)\s.*(finding|line \d|:\d+)/i.test(l) || /^\s*Scanner:/.test(l));
  say(`  card saved to ${saved} (${first.text.split('\n').length} lines); scanner lines: ${findings.slice(0, 8).join(' | ') || 'none'}`);
  const picks = ['systematic-debugging', 'brainstorming'];
  const firstId = /"block_id":"hitl:([^"]+)"/.exec(JSON.stringify(first.card.blocks))?.[1] ?? '';
  t.clicked.add(firstId); // a pick replaces this card: nothing on it is to be approved
  await t.sender.select({ user: ALICE, channel: CHANNEL, messageTs: first.card.ts, threadTs: root.ts, actionId: 'install_pick', blockId: `pick:${firstId}`, values: picks });
  const second = await t.nextCard(root.ts, first.card.ts, join(t.dir, '..', 'try-superpowers-picked-card.txt'));
  t.sayCard('superpowers, picked', second.text);
  const done = await t.approveUntil(root.ts, BOB, () => t.slack.thread(CHANNEL, root.ts).find((m) => /^(Installed|Not installed|Cannot install)/.test(m.text)));
  say(`  -> ${done.text.split('\n')[0]}`);
  const here = t.app.engine.invocableSkills(t.world).map((s) => s.id);
  say(`  usable in the channel: ${picks.map((id) => `${id} ${here.includes(id)}`).join(', ')}`);
  const { results } = await t.turn('superpowers', 'This test fails one run in ten. Help me find out why.', [
    toolUseReply('load_skill', { skill_id: 'systematic-debugging' }),
    (seen) => textReply(`DONE: following systematic-debugging (${/<instructions>\s*([^\n]{0,80})/.exec(seen[0] ?? '')?.[1] ?? 'no instructions'}).`),
  ], { threadTs: root.ts });
  say(`[superpowers] load_skill in the thread: ${/status="(\w+)"/.exec(results[0] ?? '')?.[1] ?? 'no result'}`);
}

async function trySkillCreator(t: Try): Promise<void> {
  const root = await t.mention('skills install github:anthropics/skills --skill skill-creator');
  const card = await t.nextCard(root, root);
  t.sayCard('install skill-creator', card.text);
  const installed = await t.approveUntil(root, BOB, t.installed(root, 'skill-creator', root));
  say(`  -> ${installed.text.split('\n')[0]}`);
  if (!installed.text.startsWith('Installed')) return;
  const skillMd = '---\nname: hello-world\ndescription: Says hello to the person, warmly and by name.\n---\n\n# Hello\n\nGreet the person by name.\n';
  await t.turn('skill-creator', 'Make me a tiny hello-world skill and package it as a .skill file.', [
    toolUseReply('load_skill', { skill_id: 'skill-creator' }),
    toolUseReply('str_replace_based_edit_tool', { command: 'create', path: '/workspace/hello-world/SKILL.md', file_text: skillMd }),
    // What SKILL.md says (`python -m scripts.package_skill`), through the shell from the skill's folder.
    toolUseReply('bash', { command: 'cd /skills/skill-creator && python3 -m scripts.package_skill /workspace/hello-world /workspace/outputs' }),
    textReply('DONE: packaged.'),
  ], { threadTs: root });
  const packaged = t.slack.uploads.find((u) => u.name.endsWith('.skill') && u.threadTs === root);
  if (packaged === undefined) return say('[skill-creator] no .skill reached the thread');
  say(`[skill-creator] ${packaged.name} reached the thread (${packaged.bytes.length} bytes); installing it from there`);
  const shared = t.slack.shareFile({ name: packaged.name, mimetype: 'application/zip', bytes: packaged.bytes });
  const asked = await t.mention('skills install', { threadTs: root, files: [shared] });
  const done = await t.approveUntil(root, BOB, t.installed(root, 'hello-world', asked));
  say(`  -> ${done.text.split('\n')[0]}`);
  say(`  hello-world usable in the channel: ${t.app.engine.invocableSkills(t.world).some((s) => s.id === 'hello-world')}`);
}

const t = await startTry({ 'anthropics/skills': anthropicSkills, ...(superpowers ? { 'obra/superpowers': superpowers } : {}) });
try {
  await tryPdf(t);
  if (superpowers) await trySuperpowers(t);
  await trySkillCreator(t);
} finally {
  await t.close();
}
