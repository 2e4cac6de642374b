// A stand-in for a bot running as PID 1 without an init (a container started without --init): run by
// tests/exec/pid1.test.ts as PID 1 of a PID namespace of its own. It drives the executor through 100 runs that time
// out, then prints how many zombies its namespace holds and what a next run says.
import { readdirSync, readFileSync } from 'node:fs';
import { createExecutor } from '../../src/exec/executor.ts';

const [skillDir, count = '100'] = process.argv.slice(2);
if (skillDir === undefined) throw new Error('usage: pid1Bot.ts SKILL_DIR [RUNS]');

function zombies(): number {
  let found = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = (() => {
      try {
        return readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        return '';
      }
    })();
    if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') found += 1;
  }
  return found;
}

const executor = createExecutor({ timeoutMs: 250, killGraceMs: 200 });
await executor.sandbox();
const statuses = await Promise.all(Array.from({ length: Number(count) }, () => executor.run({ skillDir, script: 'scripts/hang.sh' })));
// Give the kernel a moment to report every exit before counting what nobody reaped.
await new Promise((resolve) => setTimeout(resolve, 500));
const next = await executor.run({ skillDir, script: 'scripts/hello.sh' });
process.stdout.write(
  `${JSON.stringify({ pid: process.pid, timeouts: statuses.filter((result) => result.status === 'timeout').length, zombies: zombies(), next: { status: next.status, stdout: next.stdout, reason: next.reason } })}\n`,
);
