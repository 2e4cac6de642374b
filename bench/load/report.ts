// Prints the run: the pass criteria as counts, then the figures that explain them.
import type { SentMessage } from './chatRun.ts';
import { percentile, type Check, type MemoryLife } from './figures.ts';
import type { HeapLife, HeapSample } from './heap.ts';
import type { Life } from './instances.ts';
import type { LogSummary } from './logScan.ts';
import type { ThreadState } from './replies.ts';

export interface RunReport {
  title: string;
  checks: Check[];
  sent: SentMessage[];
  threads: ThreadState;
  memory: MemoryLife[];
  heap: HeapLife[];
  heapSamples: HeapSample[];
  lives: Life[];
  logs: LogSummary;
  /** Free-form figure lines: traffic, faults, the kill's timeline. */
  figures: Array<[string, string]>;
  runStartedAt: number;
  logsDir: string | undefined;
}

const line = (label: string, value: string, mark = '') => `  ${label.padEnd(54, ' ')} ${value}${mark ? `  ${mark}` : ''}`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function latencies(sent: SentMessage[], pick: (message: SentMessage) => boolean): string {
  const values = sent.filter((message) => pick(message) && message.finalAt !== undefined).map((message) => (message.finalAt ?? 0) - message.sentAt);
  if (values.length === 0) return 'none answered';
  return `p50 ${seconds(percentile(values, 50))}  p99 ${seconds(percentile(values, 99))}  max ${seconds(Math.max(...values))}  (${values.length} turns)`;
}

export function printReport(report: RunReport): boolean {
  const passed = report.checks.every((check) => check.pass);
  const out: string[] = [report.title, '', 'Pass criteria'];
  for (const check of report.checks) out.push(line(check.label, check.value, check.pass ? 'ok' : 'FAIL'));
  out.push('', 'Turn latency (delivery of the message to its final reply in Slack)');
  out.push(line('all turns', latencies(report.sent, () => true)));
  out.push(line('plain turns', latencies(report.sent, (message) => !message.script)));
  out.push(line('script turns (incl. the person clicking)', latencies(report.sent, (message) => message.script)));
  out.push('', 'Figures');
  for (const [label, value] of report.figures) out.push(line(label, value));
  out.push('', 'Memory (RSS from /metrics while answering, after 5 s of warm-up, sampled every 0.5 s, per process life)');
  for (const life of report.memory) {
    const verdict = life.flat === undefined ? 'too short to judge' : life.flat ? 'flat' : 'GROWING';
    out.push(line(life.label, `first ${life.firstMiB.toFixed(1)} / max ${life.maxMiB.toFixed(1)} / last ${life.lastMiB.toFixed(1)} MiB, ${life.samples} samples, last/first third ${life.growth.toFixed(2)}: ${verdict}`));
  }
  if (report.heapSamples.length > 0) {
    out.push('', 'Heap after a forced GC, and RSS (through each instance\'s inspector; the second sample of a life is its baseline)');
    for (const sample of report.heapSamples) {
      out.push(line(`${sample.instance}#${sample.life} at ${sample.turns} turns (${sample.answered} answered in all)`, `heap ${(sample.heapUsedBytes / 1048576).toFixed(1)} MiB, external ${(sample.externalBytes / 1048576).toFixed(1)} MiB, RSS ${(sample.rssBytes / 1048576).toFixed(1)} MiB`));
    }
    for (const life of report.heap) {
      const verdict = life.flat === undefined ? 'too few samples to judge' : life.flat ? 'flat' : 'GROWING';
      out.push(line(`${life.label} baseline → end`, `heap ${life.warmHeapMiB.toFixed(1)} → ${life.endHeapMiB.toFixed(1)} MiB (${((life.heapGrowth - 1) * 100).toFixed(1)}%), RSS ${life.warmRssMiB.toFixed(1)} → ${life.endRssMiB.toFixed(1)} MiB (${((life.rssGrowth - 1) * 100).toFixed(1)}%): ${verdict}`));
    }
  }
  out.push('', 'Processes');
  for (const life of report.lives) {
    const exit = life.exit ? `${life.exit.requested ?? 'CRASH'} (code ${life.exit.code}, signal ${life.exit.signal}) at +${seconds(life.exit.at - report.runStartedAt)}` : 'running';
    out.push(line(`${life.instance}#${life.n} pid ${life.pid}`, `healthy at +${seconds((life.healthyAt ?? life.startedAt) - report.runStartedAt)}, ended: ${exit}`));
  }
  const { threads, logs } = report;
  if (threads.leftOver > 0) out.push('', `Bot messages left showing a placeholder/preview (${threads.leftOver}), e.g.:`, ...threads.leftOverExamples.map((text) => `  ${text}`));
  if (threads.otherReplies.size > 0) out.push('', 'Other bot replies:', ...[...threads.otherReplies].map(([text, count]) => `  ${count} × ${text}`));
  if (threads.duplicateExamples.length > 0) out.push('', 'Duplicate posts, e.g.:', ...threads.duplicateExamples.map((text) => `  ${text}`));
  if (logs.unhandled.length > 0) out.push('', 'Unhandled in logs:', ...logs.unhandled.slice(0, 10).map((text) => `  ${text}`));
  if (logs.errors.length > 0) out.push('', 'Error log lines (instances):', ...logs.errors.slice(0, 10).map(({ msg, count }) => `  ${count} × ${msg}`));
  if (logs.warnings.length > 0) out.push('', 'Warning log lines (instances):', ...logs.warnings.slice(0, 10).map(({ msg, count }) => `  ${count} × ${msg}`));
  const missing = report.sent.filter((message) => message.finalAt === undefined);
  if (missing.length > 0) {
    out.push('', `Messages without a final reply (${missing.length}), e.g.:`);
    for (const message of missing.slice(0, 10)) {
      out.push(`  ${message.marker} in ${message.channel}/${message.threadTs}: ${message.delivered ? 'delivered' : 'NOT delivered'} (${message.deliveryAttempts} attempts) at +${seconds(message.sentAt - report.runStartedAt)}`);
    }
  }
  out.push('', passed ? 'PASS' : `FAIL${report.logsDir ? ` (instance logs kept in ${report.logsDir})` : ''}`);
  console.log(out.join('\n'));
  return passed;
}
