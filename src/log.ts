import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The logger every part receives (no module-level singleton). Logs go to stderr so that stdout stays the
 * chat's or the command's own output. LOG_LEVEL picks the level; `silent` for tests.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: undefined }, pino.destination({ fd: 2, sync: false }));
}

/** A logger that drops everything (tests, benches). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
