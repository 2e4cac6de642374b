import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config/config.ts';

export type { Logger };

/** Fields on every line of a running bot, so lines shipped from several instances can be told apart. */
export interface LogIdentity {
  instanceId: string;
}

function base(identity: LogIdentity | undefined): Record<string, unknown> | undefined {
  return identity === undefined ? undefined : { instanceId: identity.instanceId, pid: process.pid, hostname: hostname() };
}

/**
 * The logger every part receives (no module-level singleton). Logs go to stderr as JSON lines, so stdout stays
 * the chat's or the command's own output. The level comes from the validated config (LOG_LEVEL). With an
 * identity every line carries the instance id, the pid and the host.
 */
export function createLogger(level: LogLevel = 'info', identity?: LogIdentity): Logger {
  return pino({ level, base: base(identity) }, pino.destination({ fd: 2, sync: false }));
}

/** A logger that drops everything (tests, benches). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** One JSON log line as a person reads it: `skillbot warn: message (key=value, …)`. */
export function readableLogLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  // Who logged it matters in a shipped log, not to the person reading their own terminal.
  const { level, msg, time: _time, err, instanceId: _instance, pid: _pid, hostname: _host, ...fields } = entry;
  const parts = Object.entries(fields).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const error = err as { message?: string } | undefined;
  if (error?.message) parts.push(`error=${error.message}`);
  const name = LEVEL_NAMES[Number(level)] ?? 'log';
  return `skillbot ${name}: ${String(msg ?? '')}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/**
 * The terminal chat's logger: a person is reading the conversation on this terminal, so every log line at
 * LOG_LEVEL goes to `file` as JSON, and only warnings and errors show on stderr, one readable line each.
 */
export function createChatLogger(level: LogLevel, file: string, identity?: LogIdentity): Logger {
  if (level === 'silent') return silentLogger();
  mkdirSync(dirname(file), { recursive: true });
  const readable = {
    write(chunk: string): void {
      for (const line of chunk.split('\n')) if (line.trim() !== '') process.stderr.write(`${readableLogLine(line)}\n`);
    },
  };
  const shown = pino.levels.values[level]! > pino.levels.values.warn! ? level : 'warn';
  return pino(
    { level, base: base(identity) },
    pino.multistream([
      { level, stream: pino.destination({ dest: file, append: true, sync: false }) },
      { level: shown, stream: readable },
    ]),
  );
}
