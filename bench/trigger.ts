// npm run bench:trigger — what a triggered skill with preflight saves, against the same task through load_skill.
// Drives the real engine (registry, store, approvals, executor) against the Anthropic fake, whose requests
// record usage, and prints model round trips and tokens per turn for:
//   triggered   the message matches the skill's triggers; the runtime runs its preflight step and hands the
//               model the loaded skill, so it answers at once;
//   load_skill  the model calls load_skill, which runs the script the body names, then answers;
//   load+run    the model calls load_skill, then run_skill_script with arguments, then answers.
// Every turn is a fresh chat (the skill is new to it) and the script is approved at once. Then it times
// trigger matching alone over a large catalog.
import { rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { matchTriggers, type TriggerSource } from '../src/skills/triggers.ts';
import { lastToolResult, textReply, toolUseReply, type Brain, type RecordedRequest } from '../tests/fakes/anthropic.ts';
import { startEngine, type SkillSpec } from '../tests/lifecycle/engineHarness.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const MESSAGE = 'Please write the release notes for this week';
const ANSWER = 'Release notes:\n- Features: search, exports.\n- Fixes: login timeout, CSV quoting.';
const COMMITS_SCRIPT = '#!/bin/bash\nfor i in $(seq 1 "${1:-20}"); do echo "c0ffee$i 2026-11-2$((i % 10)) dev$((i % 4)): change number $i of the week"; done\n';

// A realistic catalog around the skill under test, so the system prompt is not trivially small.
const FILLER: SkillSpec[] = Array.from({ length: 30 }, (_, i) => ({
  name: `team-skill-${String(i).padStart(2, '0')}`,
  frontmatter: `triggers: ["task ${i}"]\n`,
  body: `# Team skill ${i}\nInstructions for task ${i}.`,
}));

const variants: Array<{ name: string; skill: SkillSpec; brain: Brain }> = [
  {
    name: 'triggered',
    skill: {
      name: 'release-notes',
      frontmatter: 'triggers: ["release notes"]\npreflight:\n  - name: commits\n    command: scripts/commits.sh\n    args: ["20"]\n',
      body: '# Release notes\nGroup the commits of the `commits` block into Features and Fixes, one line each.',
      files: { 'scripts/commits.sh': COMMITS_SCRIPT },
    },
    brain: () => textReply(ANSWER),
  },
  {
    name: 'load_skill',
    skill: {
      name: 'release-notes',
      body: '# Release notes\nGroup the commits printed by scripts/commits.sh into Features and Fixes, one line each.',
      files: { 'scripts/commits.sh': COMMITS_SCRIPT },
    },
    brain: (req) => (lastToolResult(req) ? textReply(ANSWER) : toolUseReply('load_skill', { skill_id: 'release-notes' })),
  },
  {
    name: 'load+run',
    skill: {
      name: 'release-notes',
      body: '# Release notes\nRun the commits script (`scripts/commits.sh` with the number 20) with run_skill_script, then group the commits into Features and Fixes.',
      files: { 'scripts/commits.sh': COMMITS_SCRIPT },
    },
    brain: (req) => {
      const last = lastToolResult(req);
      if (!last) return toolUseReply('load_skill', { skill_id: 'release-notes' });
      if (last.content.includes('status="loaded"')) {
        return toolUseReply('run_skill_script', { skill_id: 'release-notes', script: 'scripts/commits.sh', args: ['20'] });
      }
      return textReply(ANSWER);
    },
  },
];

interface Figures {
  roundTrips: number;
  input: number;
  cacheRead: number;
  cacheCreation: number;
  output: number;
  ms: number;
}

function sumUsage(requests: RecordedRequest[]): Omit<Figures, 'ms'> {
  const total = { roundTrips: requests.length, input: 0, cacheRead: 0, cacheCreation: 0, output: 0 };
  for (const request of requests) {
    total.input += request.usage?.input_tokens ?? 0;
    total.cacheRead += request.usage?.cache_read_input_tokens ?? 0;
    total.cacheCreation += request.usage?.cache_creation_input_tokens ?? 0;
    total.output += request.usage?.output_tokens ?? 0;
  }
  return total;
}

async function measure(variant: (typeof variants)[number]): Promise<Figures> {
  const harness = await startEngine({ skills: [...FILLER, variant.skill], answer: 'yes_once' });
  try {
    harness.fake.setBrain(variant.brain);
    // One warm-up turn: the SDK connection and the prompt cache of the shared prefix.
    await harness.say(MESSAGE, { chat: 'warmup' });
    const before = harness.fake.requests.length;
    const started = performance.now();
    for (let turn = 0; turn < TURNS; turn += 1) {
      const { reply } = await harness.say(MESSAGE, { chat: `chat${turn}` });
      if (reply !== ANSWER) throw new Error(`${variant.name}: unexpected reply ${JSON.stringify(reply)}`);
    }
    const ms = performance.now() - started;
    const total = sumUsage(harness.fake.requests.slice(before));
    const per = (value: number) => value / TURNS;
    return {
      roundTrips: per(total.roundTrips),
      input: per(total.input),
      cacheRead: per(total.cacheRead),
      cacheCreation: per(total.cacheCreation),
      output: per(total.output),
      ms: per(ms),
    };
  } finally {
    await harness.close();
    await rm(harness.dir, { recursive: true, force: true });
  }
}

const results = new Map<string, Figures>();
for (const variant of variants) results.set(variant.name, await measure(variant));

const pad = (text: string | number, width: number) => String(text).padStart(width);
console.log(`Per turn, mean of ${TURNS} turns, each a fresh chat (Anthropic fake, no model latency):`);
console.log(`${'path'.padEnd(11)}${pad('round trips', 12)}${pad('input', 9)}${pad('cache rd', 10)}${pad('cache wr', 10)}${pad('output', 8)}${pad('all tokens', 12)}${pad('ms', 8)}`);
const allTokens = (f: Figures) => f.input + f.cacheRead + f.cacheCreation + f.output;
for (const [name, f] of results) {
  console.log(
    `${name.padEnd(11)}${pad(f.roundTrips.toFixed(1), 12)}${pad(f.input.toFixed(0), 9)}${pad(f.cacheRead.toFixed(0), 10)}` +
      `${pad(f.cacheCreation.toFixed(0), 10)}${pad(f.output.toFixed(0), 8)}${pad(allTokens(f).toFixed(0), 12)}${pad(f.ms.toFixed(1), 8)}`,
  );
}
const triggered = results.get('triggered');
if (triggered) {
  for (const name of ['load_skill', 'load+run']) {
    const other = results.get(name);
    if (!other) continue;
    const change = (mine: number, theirs: number) => `${mine <= theirs ? '-' : '+'}${(Math.abs(1 - mine / theirs) * 100).toFixed(0)}%`;
    console.log(
      `triggered vs ${name}: ${(other.roundTrips - triggered.roundTrips).toFixed(1)} fewer model round trips per turn; ` +
        `tokens processed ${change(allTokens(triggered), allTokens(other))}, ` +
        `uncached input (input + cache writes) ${change(triggered.input + triggered.cacheCreation, other.input + other.cacheCreation)}, ` +
        `output ${change(triggered.output, other.output)}`,
    );
  }
}

// Matching alone: a large catalog, a chat-sized message.
// Frozen, as a registry snapshot's list is: its phrases are compiled once and then reused.
const catalog: readonly TriggerSource[] = Object.freeze(Array.from({ length: 500 }, (_, i) => ({
  id: `skill-${i}`,
  disableModelInvocation: false,
  triggers: [`task ${i}`, `team report ${i}`, `deploy service ${i}`, `c++ module ${i}`],
})));
const text = 'Could you deploy service 42 and then write the team report 7, with a c++ module 99 review? '.repeat(3);
let started = performance.now();
matchTriggers(text, catalog, { max: 3 });
const firstMs = performance.now() - started;
const rounds = 2000;
started = performance.now();
for (let i = 0; i < rounds; i += 1) matchTriggers(text, catalog, { max: 3 });
const perMatchUs = ((performance.now() - started) / rounds) * 1000;
console.log(
  `Trigger matching, 500 skills × 4 phrases, ${text.length}-character message: ` +
    `${firstMs.toFixed(1)} ms on first use (compiles the snapshot's phrases), then ${perMatchUs.toFixed(1)} µs per message`,
);
