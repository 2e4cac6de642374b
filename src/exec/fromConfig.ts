// The executor the bot uses, built from its config, and the one start-up line that says how skill code is contained.
import type { Config } from '../config/config.ts';
import type { Logger } from '../ops/log.ts';
import { createExecutor, type ExecutorOptions } from './executor.ts';
import type { Executor, SandboxStatus } from './types.ts';

export function executorFromConfig(
  config: Config,
  logger: Logger,
  extra: Pick<ExecutorOptions, 'hashFolder' | 'egressCa'> = {},
): Executor {
  return createExecutor({
    timeoutMs: config.scriptTimeoutMs,
    sandbox: config.sandbox.mode,
    limits: config.sandbox.limits,
    maxConcurrentPerChat: config.sandbox.maxPerChat,
    sandboxUidBase: config.sandbox.uidBase,
    ...(config.sandbox.egressDnsServers === undefined ? {} : { egressDnsServers: config.sandbox.egressDnsServers }),
    logger,
    ...extra,
  });
}

/** Logs, once at start, a warning when skill code runs bare or cannot run at all. */
export function reportSandbox(status: SandboxStatus, logger: Logger): void {
  if (status.mode === 'off') {
    logger.warn(
      'SCRIPT_SANDBOX=off: SKILL SCRIPTS RUN UNSANDBOXED, as the bot\'s own user, and can read its secrets and store. Set SCRIPT_SANDBOX=bwrap (the default) outside development.',
    );
  } else if (!status.usable) {
    logger.warn(`the skill sandbox is unusable (${status.problem}): every skill script will be refused until it is fixed. To fix: ${status.fix}.`);
  } else {
    logger.debug({ isolates: status.isolates }, 'skill sandbox ready');
  }
}
