// How `skillbot start` and `skillbot chat` run a platform: the adapters provide launchers, the CLI (the
// composition root, adapters/main.ts) hands them in; the core never imports a platform.
import type { Config } from '../config/config.ts';
import type { HttpServer } from '../ops/httpServer.ts';
import type { Core } from './core.ts';

/** A platform the `start` command can run. */
export interface PlatformLauncher {
  name: string;
  /** Whether its credentials are set. */
  enabled(config: Config): boolean;
  start(core: Core, http: HttpServer): Promise<RunningPlatform>;
}

export interface RunningPlatform {
  ready(): boolean;
  stop(): Promise<void>;
}

export interface TerminalLauncher {
  /** `logFile`: where this chat's logs go instead of the terminal, to tell the person at the start. */
  (core: Core, options: { worldId?: string; chatId?: string; logFile?: string }): Promise<number>;
}
