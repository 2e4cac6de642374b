// The real App a platform harness starts its launcher on: the Anthropic fake, a skills root, a store, and model
// retries fast enough for tests. Each platform adds its own credentials.
import { dirname, join } from 'node:path';
import { type App, type AppOptions, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { HttpServer } from '../../src/ops/httpServer.ts';
import { type Logger, silentLogger } from '../../src/ops/log.ts';
import type { FakeAnthropic } from '../fakes/anthropic.ts';

export interface TestAppOptions {
  anthropic: FakeAnthropic;
  /** SKILLS_DIRS: one root, or several joined with `:`. */
  skillsRoot: string;
  /** Default `memory://`. */
  storeUrl?: string;
  /** More settings, over the platform's (FILE_MAX_BYTES, APPROVAL_TIMEOUT_MS, …). */
  env?: Record<string, string>;
}

export interface TestApp {
  app: App;
  logger: Logger;
  /** The shared listener a launcher mounts on (`/healthz` always ready). */
  http: HttpServer;
}

export async function createTestApp(options: TestAppOptions, platformEnv: Record<string, string>, appOptions: Pick<AppOptions, 'queue'> = {}): Promise<TestApp> {
  const config = loadConfig({
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: options.anthropic.url,
    SKILLS_DIRS: options.skillsRoot,
    STORE_URL: options.storeUrl ?? 'memory://',
    APPROVAL_TIMEOUT_MS: '30000',
    // Beside the skills (kept across a restart of the bot), never in the project's own data folder.
    WORKSPACES_DIR: join(dirname(options.skillsRoot), 'workspaces'),
    INSTALLED_SKILLS_DIR: join(dirname(options.skillsRoot), 'installed-skills'),
    MCP_SKILLS_DIR: join(dirname(options.skillsRoot), 'mcp-skills'),
    ...platformEnv,
    ...options.env,
  });
  const logger = silentLogger();
  const app = await createApp(config, logger, { watchSkills: false, retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 }, ...appOptions });
  return { app, logger, http: new HttpServer(logger, async () => ({ ok: true, detail: {} })) };
}
