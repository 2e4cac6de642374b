// Bolt and its clients log through ours (pino), so LOG_LEVEL and the log format hold for them too.
import { format } from 'node:util';
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../src/ops/log.ts';

function boltLevel(logger: Logger): LogLevel {
  if (logger.isLevelEnabled('debug')) return LogLevel.DEBUG;
  if (logger.isLevelEnabled('info')) return LogLevel.INFO;
  if (logger.isLevelEnabled('warn')) return LogLevel.WARN;
  return LogLevel.ERROR;
}

/** A Bolt Logger writing to `logger`. Bolt's setLevel/setName are ignored: LOG_LEVEL decides. */
export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  return {
    debug: (...msg: unknown[]) => child.debug(format(...msg)),
    info: (...msg: unknown[]) => child.info(format(...msg)),
    warn: (...msg: unknown[]) => child.warn(format(...msg)),
    error: (...msg: unknown[]) => child.error(format(...msg)),
    setLevel: () => undefined,
    getLevel: () => boltLevel(child),
    setName: () => undefined,
  };
}
