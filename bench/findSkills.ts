// npm run bench:find — find_skills' ranked search at 10,000 generated skills: how often the wanted skill is in the
// top 5 for 200 queries written from the skills' descriptions (in other words: other inflections, other word
// order, filler), how long one search takes, and what keeping the index in step with a one-skill edit costs.
// Targets: top-5 ≥ 95%, each search ≤ 5 ms.
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { IndexedSnapshot } from '../src/skills/snapshot.ts';
import { SkillSearchIndex } from '../src/skills/skillSearch.ts';
import type { IndexedFolder } from '../src/skills/indexSkill.ts';
import type { Skill } from '../src/skills/types.ts';

const VERBS = [
  ['draft', 'drafting'], ['summarise', 'summarize'], ['convert', 'converting'], ['review', 'reviewing'], ['audit', 'auditing'],
  ['triage', 'triaging'], ['reconcile', 'reconciling'], ['forecast', 'forecasting'], ['translate', 'translating'], ['schedule', 'scheduling'],
  ['monitor', 'monitoring'], ['export', 'exporting'], ['import', 'importing'], ['validate', 'validating'], ['benchmark', 'benchmarking'],
  ['archive', 'archiving'], ['publish', 'publishing'], ['classify', 'classifying'], ['merge', 'merging'], ['tag', 'tagging'],
] as const;
const OBJECTS = [
  ['release notes', 'release note'], ['invoices', 'invoice'], ['expense reports', 'expense report'], ['pull requests', 'pull request'],
  ['support tickets', 'support ticket'], ['incident timelines', 'incident timeline'], ['sales pipelines', 'sales pipeline'],
  ['onboarding checklists', 'onboarding checklist'], ['api changelogs', 'api changelog'], ['security alerts', 'security alert'],
  ['meeting transcripts', 'meeting transcript'], ['customer surveys', 'customer survey'], ['inventory counts', 'inventory count'],
  ['payroll files', 'payroll file'], ['marketing emails', 'marketing email'], ['build logs', 'build log'],
  ['database migrations', 'database migration'], ['feature flags', 'feature flag'], ['vendor contracts', 'vendor contract'], ['budgets', 'budget'],
] as const;
const SOURCES = [
  'jira', 'github', 'salesforce', 'zendesk', 'stripe', 'bigquery', 'snowflake', 'notion', 'confluence', 'sheets', 'pagerduty', 'datadog',
  'hubspot', 'xero', 'quickbooks', 'linear', 'sentry', 'figma', 'workday', 'greenhouse', 'postgres', 'airtable', 'intercom', 'okta', 'gitlab',
];
const FORMATS = [
  'as a weekly digest for the team', 'into a slide deck for executives', 'as a table with totals', 'into a short status update',
  'as a checklist with owners', 'into a CSV file', 'as a chart with trends', 'into a one-page brief',
];
const FILLERS = ['can you help me', 'I need to', 'please', 'we want to', 'is there a skill to', 'how do I', 'help with', 'quick one:'];

const SKILLS = 10_000;
const QUERIES = 200;

function slug(text: string): string {
  return text.replace(/[^a-z0-9]+/g, '-');
}

function skillAt(i: number): Skill {
  const verb = VERBS[i % VERBS.length] ?? VERBS[0];
  const object = OBJECTS[Math.floor(i / VERBS.length) % OBJECTS.length] ?? OBJECTS[0];
  const source = SOURCES[Math.floor(i / (VERBS.length * OBJECTS.length)) % SOURCES.length] ?? '';
  const format = FORMATS[(i * 7) % FORMATS.length] ?? '';
  const id = `${verb[0]}-${slug(object[0])}-${source}`;
  const description = `${verb[0].charAt(0).toUpperCase()}${verb[0].slice(1)} ${object[0]} from ${source[0]?.toUpperCase()}${source.slice(1)} ${format}. Use when someone asks to ${verb[0]} ${object[0]}.`;
  return {
    id, description, root: '/bench', dir: `/bench/${id}`, folder: `/bench/${id}`, frontmatter: { name: id, description }, body: '',
    hash: String(i), scripts: [], runOnLoad: [], resources: [], disableModelInvocation: false, userInvocable: true, allowedTools: [],
    triggers: [], preflight: [], hooks: {}, warnings: [],
    ...(i % 3 === 0 ? { argumentHint: '[period]' } : {}),
  };
}

/** A request a person might type for skill `i`: its words in other forms and order, with filler. */
function queryFor(i: number, k: number): string {
  const verb = VERBS[i % VERBS.length] ?? VERBS[0];
  const object = OBJECTS[Math.floor(i / VERBS.length) % OBJECTS.length] ?? OBJECTS[0];
  const source = SOURCES[Math.floor(i / (VERBS.length * OBJECTS.length)) % SOURCES.length] ?? '';
  const filler = FILLERS[k % FILLERS.length] ?? '';
  return k % 2 === 0 ? `${filler} ${verb[1]} the ${object[1]} in ${source}` : `${object[0]} ${source} ${verb[1]} ${filler}`;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const ms = (value: number) => `${value.toFixed(3)} ms`;

const skills = Array.from({ length: SKILLS }, (_, i) => skillAt(i));
if (new Set(skills.map((skill) => skill.id)).size !== SKILLS) throw new Error('generated ids are not unique');
console.log(`find_skills bench: ${SKILLS} skills, ${QUERIES} queries (${cpus().length} CPUs, load ${loadavg().map((v) => v.toFixed(1)).join(' ')}, Node ${process.version})`);

let started = performance.now();
const index = new SkillSearchIndex();
index.sync(skills);
console.log(`index build:           ${ms(performance.now() - started)} for ${SKILLS} skills`);

const folders: IndexedFolder[] = skills.map((skill, i) => ({ root: '/bench', rootIndex: 0, folder: skill.folder, hash: String(i), watchDirs: [], skill }));
const snapshot = new IndexedSnapshot(1, folders, { searchIndex: index });

// One unmeasured pass first: the figures are for a running bot, not for the JIT's first sight of the code.
for (let k = 0; k < QUERIES; k += 1) snapshot.search(queryFor((k * 31) % SKILLS, k), { limit: 5 });

let found = 0;
const times: number[] = [];
const misses: string[] = [];
for (let k = 0; k < QUERIES; k += 1) {
  const wanted = (k * 7919 + 13) % SKILLS;
  const query = queryFor(wanted, k);
  // A world that allows everything except a tenth of the skills, as the turn's accept does.
  const accept = (skill: Skill) => skill.hash.endsWith('7') === false || skill.hash === String(wanted);
  const t = performance.now();
  const hits = snapshot.search(query, { limit: 5, accept });
  times.push(performance.now() - t);
  if (hits.some((hit) => hit.id === skills[wanted]?.id)) found += 1;
  else if (misses.length < 3) misses.push(`"${query}" → wanted ${skills[wanted]?.id}, got ${hits.map((hit) => hit.id).join(', ')}`);
}
times.sort((a, b) => a - b);
console.log(`top-5 recall:          ${found}/${QUERIES} = ${((found / QUERIES) * 100).toFixed(1)}% (target ≥ 95%)`);
for (const miss of misses) console.log(`  miss: ${miss}`);
console.log(`search:                p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))}, max ${ms(times.at(-1) ?? Number.NaN)} (target ≤ 5 ms each)`);

const edits: number[] = [];
for (let k = 0; k < 200; k += 1) {
  const i = (k * 997) % SKILLS;
  const edited = { ...skillAt(i), description: `${skillAt(i).description} Edited ${k}.` };
  skills[i] = edited;
  started = performance.now();
  index.sync(skills);
  edits.push(performance.now() - started);
}
edits.sort((a, b) => a - b);
console.log(`one-skill edit:        index in step in p50 ${ms(percentile(edits, 50))}, max ${ms(edits.at(-1) ?? Number.NaN)} (sync of the whole list; re-reads one skill)`);
