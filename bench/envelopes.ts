// npm run bench:envelopes -- ROOT... — the size of each skill's `load_skill` envelope (issue 36): for every skill
// found under the roots given (e.g. copies of anthropics/skills/skills, openai/skills/skills/.curated,
// obra/superpowers/skills), its SKILL.md size, its envelope's size and how far the envelope goes beyond SKILL.md,
// in characters (UTF-16 units, as the model's context counts them). Nothing is run: loading reads the snapshot.
// Exits 1 when an envelope goes more than 12,000 characters beyond its SKILL.md (the bound).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadSkill } from '../src/skills/loadSkill.ts';
import { SkillRegistry } from '../src/skills/registry.ts';

const BEYOND_MAX = 12_000;
const roots = process.argv.slice(2);
if (roots.length === 0) {
  console.error('usage: npm run bench:envelopes -- ROOT [ROOT...]   (folders holding skill folders)');
  process.exit(2);
}

let over = 0;
console.log(['root', 'skill', 'SKILL.md', 'envelope', 'beyond'].join('\t'));
for (const root of roots) {
  const registry = await SkillRegistry.open({ roots: [root], watch: false });
  const snapshot = registry.current();
  for (const skill of [...snapshot.list()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const skillMd = (await readFile(join(skill.dir, 'SKILL.md'), 'utf8')).length;
    const envelope = loadSkill(snapshot, skill.id).length;
    const beyond = envelope - skillMd;
    if (beyond > BEYOND_MAX) over += 1;
    console.log([root, skill.id, skillMd, envelope, `${beyond > 0 ? '+' : ''}${beyond}${beyond > BEYOND_MAX ? ' OVER' : ''}`].join('\t'));
  }
  for (const broken of snapshot.invalid) console.log([root, broken.id, 'invalid', broken.errors[0]?.message ?? ''].join('\t'));
  await registry.close();
}
console.log(`${over} envelope(s) more than ${BEYOND_MAX} characters beyond their SKILL.md`);
process.exitCode = over > 0 ? 1 : 0;
