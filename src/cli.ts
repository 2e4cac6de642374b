import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { config as loadDotenv } from 'dotenv';
import { type App, createApp } from './app.ts';
import type { CommandOutput } from './commandOutput.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { runAuditCommand, runGrantsCommand } from './hitl/commands.ts';
import { HttpServer } from './httpServer.ts';
import { createLogger, type Logger } from './log.ts';
import { runSkillsCommand } from './skills/commands.ts';
import { createStore } from './store/createStore.ts';

/** A platform the `start` command can run (the adapters provide them; the core never imports one). */
export interface PlatformLauncher {
  name: string;
  /** Whether its credentials are set. */
  enabled(config: Config): boolean;
  start(app: App, http: HttpServer): Promise<RunningPlatform>;
}

export interface RunningPlatform {
  ready(): boolean;
  stop(): Promise<void>;
}

export interface TerminalLauncher {
  (app: App, options: { worldId?: string; chatId?: string }): Promise<number>;
}

export interface CliHost {
  platforms: PlatformLauncher[];
  terminal: TerminalLauncher;
  output: CommandOutput;
  env: NodeJS.ProcessEnv;
}

const USAGE = `usage: skillbot <command>
  start                          run every platform whose credentials are set (else the terminal chat)
  chat [--world W] [--chat C]    terminal chat; pipe messages in, one per line, for an unattended run
  skills list|show|catalog|validate|match …
  audit [--world W] [--chat C] [--json]
  grants list|revoke …`;

/** How long a SIGTERM lets running turns finish before their chats are handed over. */
const SHUTDOWN_DEADLINE_MS = 20_000;

/** A user mistake: one line on stderr, exit code 2, no stack trace. */
class UsageError extends Error {}

function modelConfigured(config: Config): void {
  if (!config.anthropic.apiKey && !config.anthropic.baseUrl) {
    throw new UsageError('Set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a proxy) in the environment or in .env; see .env.example.');
  }
}

async function chat(args: string[], host: CliHost, config: Config, logger: Logger): Promise<number> {
  const { values } = parseArgs({ args, options: { world: { type: 'string' }, chat: { type: 'string' } }, strict: true });
  modelConfigured(config);
  const app = await createApp(config, logger);
  try {
    return await host.terminal(app, { worldId: values.world, chatId: values.chat });
  } finally {
    await app.close();
  }
}

async function start(host: CliHost, config: Config, logger: Logger): Promise<number> {
  modelConfigured(config);
  const wanted = host.platforms.filter((platform) => platform.enabled(config));
  if (wanted.length === 0) {
    logger.info('no platform credentials set: starting the terminal chat');
    return chat([], host, config, logger);
  }
  const app = await createApp(config, logger);
  const running: RunningPlatform[] = [];
  const http = new HttpServer(logger, async () => {
    const store = await app.store.ping().catch(() => false);
    const platforms = Object.fromEntries(wanted.map((platform, index) => [platform.name, running[index]?.ready() ?? false]));
    const ok = store && running.length === wanted.length && running.every((platform) => platform.ready());
    return { ok, detail: { store, platforms } };
  });
  http.route('GET', '/metrics', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(app.metrics.render());
  });
  for (const platform of wanted) running.push(await platform.start(app, http));
  app.dispatcher.start();
  const port = await http.listen(config.port, config.host);
  logger.info({ port, platforms: wanted.map((platform) => platform.name) }, 'skillbot started');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  logger.info('shutting down');
  // Stop taking turns first; running ones finish within the deadline or are handed to another instance.
  await app.dispatcher.stop(SHUTDOWN_DEADLINE_MS);
  await Promise.allSettled(running.map((platform) => platform.stop()));
  await http.close();
  await app.close();
  return 0;
}

async function withStore(config: Config, run: (store: Awaited<ReturnType<typeof createStore>>) => Promise<number>) {
  const store = await createStore(config.storeUrl);
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

/** The `skillbot` command. Returns the exit code; user mistakes print one line, never a stack trace. */
export async function runCli(argv: string[], host: CliHost): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (existsSync('.env')) loadDotenv({ path: '.env', quiet: true });
    const config = loadConfig(host.env);
    const logger = createLogger();
    switch (command) {
      case 'start':
        return await start(host, config, logger);
      case 'chat':
        return await chat(rest, host, config, logger);
      case 'skills':
        return await runSkillsCommand(rest, {
          skillsDirs: config.skillsDirs,
          output: host.output,
          catalogBudgetChars: config.agent.catalogBudgetChars,
          maxTriggeredSkills: config.agent.maxTriggeredSkills,
        });
      case 'audit':
        return await withStore(config, (store) => runAuditCommand(rest, { store, output: host.output }));
      case 'grants':
        return await withStore(config, (store) => runGrantsCommand(rest, { store, output: host.output }));
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        host.output.out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        host.output.err(`skillbot: unknown command "${command}". Commands: start, chat, skills, audit, grants.`);
        return 2;
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      host.output.err(`skillbot: ${error.message}`);
      return 2;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      host.output.err(`skillbot: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
