import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { config as loadDotenv } from 'dotenv';
import type { PlatformLauncher, RunningPlatform, TerminalLauncher } from '../platform/launchers.ts';
import type { CommandOutput } from '../ops/commandOutput.ts';
import { type Config, ConfigError, loadConfig, platformCredentialProblems } from '../config/config.ts';
import type { HttpServer } from '../ops/httpServer.ts';
import type { Logger } from '../ops/log.ts';
import type { Store } from '../store/types.ts';
import type { InstalledCopy } from '../install/installedCopy.ts';

// Each command imports what it needs when it runs: `skills list` must not pay for the model SDK, the store
// drivers or a platform (see bench/cli.ts).

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
  skills install SOURCE [--world W] [--yes] | installed [--world W] | update ID [--yes] | remove ID
  audit [--world W] [--chat C] [--person P] [--skill S] [--since T] [--until T] [--json]
  grants list|revoke …
  mcp list [--json] | mcp disconnect SERVER [--user ID]
  routines list [--world W] [--json] | add --world W --owner U "WHEN :: INSTRUCTIONS" | remove ID`;

/**
 * How long a SIGTERM lets running turns finish before their chats are left queued. Docker and Kubernetes kill
 * 10 s after SIGTERM by default: this plus the winding down (at most ~3 s, usually milliseconds) stays within.
 */
const SHUTDOWN_DEADLINE_MS = 6_000;

/** A user mistake: one line on stderr, exit code 2, no stack trace. */
class UsageError extends Error {}

function modelConfigured(config: Config): void {
  // Bedrock and Vertex read their clouds' own credentials (checked by `skillbot doctor`).
  if (config.anthropic.provider === 'anthropic' && !config.anthropic.apiKey && !config.anthropic.baseUrl) {
    throw new UsageError('Set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a proxy) in the environment or in .env; see .env.example.');
  }
}

interface ProcessLog {
  logger: Logger;
  /** On every line of the logger, and given to the app as its instance id. */
  instanceId: string;
}

/** The long-running commands log; the short ones print their result and need no logger (nor pino). */
async function processLogger(config: Config): Promise<ProcessLog> {
  const [{ createLogger }, { newInstanceId }] = await Promise.all([import('../ops/log.ts'), import('../chats/instanceLiveness.ts')]);
  const instanceId = newInstanceId();
  return { logger: createLogger(config.logLevel, { instanceId }), instanceId };
}

/** Where the terminal chat's logs go while a person is reading the conversation on the same terminal. */
export const CHAT_LOG_FILE = join('data', 'skillbot.log');

async function chat(args: string[], host: CliHost, config: Config, log: ProcessLog, why?: string): Promise<number> {
  const { values } = parseArgs({ args, options: { world: { type: 'string' }, chat: { type: 'string' } }, strict: true });
  modelConfigured(config);
  // JSON lines between the messages would bury the conversation (and a piped run's answers on the same screen):
  // every line goes to a file, and warnings and errors show on stderr, one readable line each.
  const onTerminal = host.interactive === true;
  const chatLogger = (await import('../ops/log.ts')).createChatLogger(config.logLevel, CHAT_LOG_FILE, { instanceId: log.instanceId });
  if (why !== undefined) chatLogger.info(why);
  const { createApp } = await import('../app.ts');
  const app = await createApp(config, chatLogger, { instanceId: log.instanceId });
  // As `start` does for the platforms: the terminal's lines go through the same durable queue, and its sweeper
  // answers what a killed session left in a chat this session resumes.
  app.dispatcher.start();
  // MCP sign-in lands on the bot's listener: the terminal chat opens one when a server may need it.
  const callback = app.mcp === undefined ? undefined : await (await import('../mcp/signInListener.ts')).signInListener(app.mcp.signIns, config, chatLogger);
  try {
    return await host.terminal(app.core, { worldId: values.world, chatId: values.chat, ...(onTerminal ? { logFile: CHAT_LOG_FILE } : {}) });
  } finally {
    await callback?.close();
    await app.close();
  }
}

async function start(host: CliHost, config: Config, log: ProcessLog): Promise<number> {
  modelConfigured(config);
  // A token without its partner would start nothing (or the terminal chat, which under a service manager
  // reads a closed stdin and exits 0): the service would "run" and answer nobody.
  const [problem] = platformCredentialProblems(config);
  if (problem !== undefined) throw new UsageError(problem);
  const { logger, instanceId } = log;
  const wanted = host.platforms.filter((platform) => platform.enabled(config));
  if (wanted.length === 0) {
    // Into the chat's log file, not stderr: a piped run's stderr holds only readable warnings, from its first line.
    return chat([], host, config, log, 'no platform credentials set: starting the terminal chat');
  }
  const [{ createApp }, { HttpServer }] = await Promise.all([import('../app.ts'), import('../ops/httpServer.ts')]);
  const app = await createApp(config, logger, { instanceId });
  const running: RunningPlatform[] = [];
  const http: HttpServer = new HttpServer(logger, async () => {
    const store = await app.store.ping().catch(() => false);
    const platforms = Object.fromEntries(wanted.map((platform, index) => [platform.name, running[index]?.ready() ?? false]));
    const ok = store && running.length === wanted.length && running.every((platform) => platform.ready());
    return { ok, detail: { store, platforms } };
  });
  // METRICS_PORT: its own listener (bound to HOST like the other), so a firewall or a Kubernetes Service can keep
  // it private while PORT takes Slack's events. Without it, /metrics is on PORT.
  const metricsHttp = config.metricsPort === undefined ? http : new HttpServer(logger, async () => ({ ok: true, detail: {} }));
  if (app.mcp !== undefined) (await import('../mcp/oauthCallback.ts')).mountOAuthCallback(http, app.mcp.signIns);
  metricsHttp.route('GET', '/metrics', async (_req, res) => {
    const text = await app.metrics.render();
    res.writeHead(200, { 'content-type': app.metrics.contentType }).end(text);
  });
  const stopPlatforms = () => Promise.allSettled(running.map((platform) => platform.stop()));
  try {
    for (const platform of wanted) running.push(await platform.start(app.core, http));
    app.dispatcher.start();
    http.routePrefix('POST', '/hooks/', app.routines.hookHandler());
    await app.routines.start();
    const port = await listen(http, config.port, config.host, 'PORT');
    const metricsPort = metricsHttp === http ? port : await listen(metricsHttp, config.metricsPort ?? 0, config.host, 'METRICS_PORT');
    logger.info({ port, metricsPort, platforms: wanted.map((platform) => platform.name) }, 'skillbot started');
  } catch (error) {
    // A start-up failure (a refused token, a port in use): close what started, then say it in one line.
    await stopPlatforms();
    await Promise.allSettled([http.close(), metricsHttp.close()]);
    await app.close().catch(() => undefined);
    throw error;
  }
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ signal }, 'shutting down');
  // Stop taking turns first; running ones finish within the deadline, or stay queued for the restart.
  const [shutdown] = await Promise.allSettled([app.shutdown(SHUTDOWN_DEADLINE_MS)]);
  await stopPlatforms();
  await Promise.allSettled([http.close(), metricsHttp.close()]);
  const [closed] = await Promise.allSettled([app.close()]);
  for (const step of [shutdown, closed]) if (step.status === 'rejected') logger.warn({ err: step.reason }, 'shutdown did not finish cleanly');
  logger.info('stopped');
  return 0;
}

/** Listens, or says in one line which variable names a port that cannot be had. */
async function listen(http: HttpServer, port: number, host: string, variable: string): Promise<number> {
  try {
    return await http.listen(port, host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ConfigError(`${variable} ${port} is in use on ${host} (another skillbot?): stop it, or set ${variable} to a free port.`);
    if (code === 'EACCES') throw new ConfigError(`${variable} ${port} needs privileges on ${host}: use a port above 1023, or set ${variable}.`);
    if (code === 'EADDRNOTAVAIL') throw new ConfigError(`HOST ${host} is not an address of this machine: set HOST (0.0.0.0 listens on all).`);
    throw error;
  }
}

async function withStore(config: Config, run: (store: Store) => Promise<number>) {
  const { createStore } = await import('../store/createStore.ts');
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
        const [sub = '', ...args] = rest;
        if (['install', 'installed', 'update', 'remove'].includes(sub)) {
          const { runInstallCli } = await import('../install/installCli.ts');
          return await runInstallCli(sub, args, config, { output: host.output, interactive: host.interactive === true });
        }
        const [{ runSkillsCommand }, { offeredServers }, { withInstalledCopy, installedNote }] = await Promise.all([
          import('./skillsCommands.ts'),
          import('../mcp/skillNeeds.ts'),
          import('../install/installedCopy.ts'),
        ]);
        const run = async (installed: InstalledCopy) => {
          if (installed.problem !== undefined) host.output.err(`skillbot skills: ${installed.problem}`);
          return runSkillsCommand(rest, {
            mcpServersOffered: offeredServers(config),
            skillsDirs: installed.dir === undefined ? config.skillsDirs : [...config.skillsDirs, installed.dir],
            output: host.output,
            catalogBudgetChars: config.agent.catalogBudgetChars,
            maxTriggeredSkills: config.agent.maxTriggeredSkills,
            installed: new Map(installed.skills.map((skill) => [skill.id, installedNote(skill)])),
          });
        };
        // What the bot serves: SKILLS_DIRS, then the skills installed from a chat or the CLI (validate checks folders).
        return await (['list', 'show', 'catalog', 'match'].includes(sub) ? withInstalledCopy(config, run) : run({ skills: [] }));
      }
      case 'audit': {
        const { runAuditCommand } = await import('../approvals/index.ts');
        return await withStore(config, (store) => runAuditCommand(rest, { store, output: host.output }));
      }
      case 'grants': {
        const [{ runGrantsCommand, createRecordSealer }, { loadStateKey }] = await Promise.all([import('../approvals/index.ts'), import('../keys/stateKey.ts')]);
        return await withStore(config, (store) =>
          runGrantsCommand(rest, { store, output: host.output, sealer: createRecordSealer(loadStateKey(config).secret) }),
        );
      }
      case 'mcp': {
        const [{ runMcpCommand }, { loadStateKey }] = await Promise.all([import('../mcp/commands.ts'), import('../keys/stateKey.ts')]);
        return await withStore(config, (store) => runMcpCommand(rest, { config, store, stateKey: loadStateKey(config).secret, output: host.output }));
      }
      case 'routines': {
        const [{ runRoutinesCli }, { silentLogger }] = await Promise.all([import('../routines/routinesCli.ts'), import('../ops/log.ts')]);
        return await withStore(config, (store) => runRoutinesCli(rest, { config, store, logger: silentLogger(), output: host.output }));
      }
      default:
        host.output.err(`skillbot: unknown command "${command}". Commands: start, chat, doctor, skills, audit, grants, mcp, routines.`);
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
