// Reads the instances' stderr (pino JSON at LOG_LEVEL=warn, plus whatever Node prints when a process dies).
import { readFile } from 'node:fs/promises';
import type { Life } from './instances.ts';

const UNHANDLED = /unhandledRejection|Unhandled|uncaughtException|triggerUncaughtException/;

export interface LogSummary {
  /** Lines that tell of an unhandled rejection or exception. */
  unhandled: string[];
  /** error/fatal log lines, by message, most frequent first. */
  errors: Array<{ msg: string; count: number }>;
  /** warn lines, by message, most frequent first. */
  warnings: Array<{ msg: string; count: number }>;
}

function tally(map: Map<string, number>): Array<{ msg: string; count: number }> {
  return [...map.entries()].map(([msg, count]) => ({ msg, count })).sort((a, b) => b.count - a.count);
}

export async function scanLogs(lives: Life[]): Promise<LogSummary> {
  const unhandled: string[] = [];
  const errors = new Map<string, number>();
  const warnings = new Map<string, number>();
  for (const life of lives) {
    const text = await readFile(life.logPath, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      if (UNHANDLED.test(line)) unhandled.push(`${life.instance}#${life.n}: ${line.slice(0, 200)}`);
      let entry: { level?: unknown; msg?: unknown; err?: unknown };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue; // Node's own output (a stack trace): counted above when it names an unhandled error
      }
      const level = typeof entry.level === 'number' ? entry.level : 0;
      const detail = typeof entry.err === 'string' ? ` (${entry.err})` : '';
      const msg = `${String(entry.msg ?? '?')}${detail}`;
      const target = level >= 50 ? errors : level >= 40 ? warnings : undefined;
      target?.set(msg, (target.get(msg) ?? 0) + 1);
    }
  }
  return { unhandled, errors: tally(errors), warnings: tally(warnings) };
}
