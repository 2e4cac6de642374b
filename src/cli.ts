import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { config as loadDotenv } from 'dotenv';
import type { App } from './app.ts';
import type { CommandOutput } from './commandOutput.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import type { HttpServer } from './httpServer.ts';
import type { Logger } from './log.ts';
import type { Store } from './store/types.ts';

// Each command imports what it needs when it runs: `skills list` must not pay for the model SDK, the store
// drivers or a platform (see bench/cli.ts).

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
  /** `logFile`: where this chat's logs go instead of the terminal, to tell the person at the start. */
  (app: App, options: { worldId?: string; chatId?: string; logFile?: string }): Promise<number>;
}

export interface CliHost {
  platforms: PlatformLauncher[];
  terminal: TerminalLauncher;
  output: CommandOutput;
  env: NodeJS.ProcessEnv;
  /** A person reads stdin/stdout on a terminal (the terminal chat then keeps logs off it). */
  interactive?: boolean;
}

const USAGE = `usage: skillbot <command>
  start                          run every platform whose credentials are set (else the terminal chat)
  chat [--world W] [--chat C]    terminal chat; pipe messages in, one per line, for an unattended run
  doctor                         check the sandbox, the store, platform credentials and skills (exit 1 on a failure)
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

/** The long-running commands log; the short ones print their result and need no logger (nor pino). */
async function processLogger(config: Config): Promise<Logger> {
  const { createLogger } = await import('./log.ts');
  return createLogger(config.logLevel);
}

/** Where the terminal chat's logs go while a person is reading the conversation on the same terminal. */
export const CHAT_LOG_FILE = join('data', 'skillbot.log');

async function chat(args: string[], host: CliHost, config: Config, logger: Logger): Promise<number> {
  const { values } = parseArgs({ args, options: { world: { type: 'string' }, chat: { type: 'string' } }, strict: true });
  modelConfigured(config);
  // On a terminal, JSON lines between the messages would bury the conversation: logs go to a file instead.
  const onTerminal = host.interactive === true;
  const chatLogger = onTerminal ? (await import('./log.ts')).createChatLogger(config.logLevel, CHAT_LOG_FILE) : logger;
  const { createApp } = await import('./app.ts');
  const app = await createApp(config, chatLogger);
  // As `start` does for the platforms: the terminal's lines go through the same durable queue, and its sweeper
  // answers what a killed session left in a chat this session resumes.
  app.dispatcher.start();
  try {
    return await host.terminal(app, { worldId: values.world, chatId: values.chat, ...(onTerminal ? { logFile: CHAT_LOG_FILE } : {}) });
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
  const [{ createApp }, { HttpServer }] = await Promise.all([import('./app.ts'), import('./httpServer.ts')]);
  const app = await createApp(config, logger);
  const running: RunningPlatform[] = [];
  const http: HttpServer = new HttpServer(logger, async () => {
    const store = await app.store.ping().catch(() => false);
    const platforms = Object.fromEntries(wanted.map((platform, index) => [platform.name, running[index]?.ready() ?? false]));
    const ok = store && running.length === wanted.length && running.every((platform) => platform.ready());
    return { ok, detail: { store, platforms } };
  });
  http.route('GET', '/metrics', async (_req, res) => {
    const text = await app.metrics.render();
    res.writeHead(200, { 'content-type': app.metrics.contentType }).end(text);
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

async function withStore(config: Config, run: (store: Store) => Promise<number>) {
  const { createStore } = await import('./store/createStore.ts');
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
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      host.output.out(USAGE);
      return command === undefined ? 2 : 0;
    }
    if (existsSync('.env')) loadDotenv({ path: '.env', quiet: true });
    const config = loadConfig(host.env);
    switch (command) {
      case 'start':
        return await start(host, config, await processLogger(config));
      case 'chat':
        return await chat(rest, host, config, await processLogger(config));
      case 'doctor': {
        const { runDoctor } = await import('./doctor.ts');
        return await runDoctor(config, { output: host.output });
      }
      case 'skills': {
        const { runSkillsCommand } = await import('./skills/commands.ts');
        return await runSkillsCommand(rest, {
          skillsDirs: config.skillsDirs,
          output: host.output,
          catalogBudgetChars: config.agent.catalogBudgetChars,
          maxTriggeredSkills: config.agent.maxTriggeredSkills,
        });
      }
      case 'audit': {
        const { runAuditCommand } = await import('./approvals/index.ts');
        return await withStore(config, (store) => runAuditCommand(rest, { store, output: host.output }));
      }
      case 'grants': {
        const [{ runGrantsCommand }, { createRecordSealer }, { loadStateKey }] = await Promise.all([
          import('./approvals/index.ts'),
          import('./approvals/index.ts'),
          import('./approvals/index.ts'),
        ]);
        return await withStore(config, (store) =>
          runGrantsCommand(rest, { store, output: host.output, sealer: createRecordSealer(loadStateKey(config).secret) }),
        );
      }
      default:
        host.output.err(`skillbot: unknown command "${command}". Commands: start, chat, doctor, skills, audit, grants.`);
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
