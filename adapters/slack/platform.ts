// Slack's life in one process: Bolt 5 over HTTP (POST /slack/events on the shared listener) or Socket Mode, the
// listeners registered, the presenter and the port given to the core, and stop().
import { App as BoltApp, HTTPReceiver, SocketModeReceiver, webApi } from '@slack/bolt';
import { ConfigError, type Core, type HttpServer, type RunningPlatform } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { registerAccess } from './access.ts';
import { registerAppHome } from './appHome.ts';
import { registerApprovalClicks } from './approvalClicks.ts';
import { registerInstallPicks } from './installPicks.ts';
import { registerQuestionActions, SlackQuestionPresenter } from './mcpQuestions.ts';
import { registerAssistantThreads } from './assistantThreads.ts';
import { SlackApprovalPresenter } from './approvalPresenter.ts';
import { boltLogger } from './boltLogger.ts';
import { registerCommands } from './commands.ts';
import { registerMessageEvents, RetryLater } from './messages.ts';
import { SlackApi, slackErrorCode, webClientOptions, type Identity } from './slackApi.ts';
import { registerRoutineCommands } from './routineCommands.ts';
import { registerStopClicks } from './stop.ts';
import { registerTaskCancelClicks } from './taskCancel.ts';
import { BackgroundTasks } from './tasks.ts';
import { ThreadMemory } from './threads.ts';
import { slackPort } from './turns.ts';

export const SLACK_EVENTS_PATH = '/slack/events';
/** How long stop() lets running Slack work finish (turns waiting on an approval are ended by app.close()). */
const STOP_GRACE_MS = 5000;

async function whoAmI(api: SlackApi, apiUrl: string | undefined): Promise<Identity> {
  try {
    return await api.identity();
  } catch (error) {
    const code = slackErrorCode(error);
    const where = apiUrl ? ` at ${apiUrl}` : '';
    throw new ConfigError(`Slack${where} refused SLACK_BOT_TOKEN or could not be reached (${code}); check the token (it starts with xoxb-).`);
  }
}

/** Bolt over the receiver the settings ask for: Socket Mode with an app token, else HTTP. */
function boltFor(core: Core, identity: Identity, logger: Logger) {
  const { botToken, signingSecret, appToken, apiUrl } = core.settings.slack;
  const socketMode = appToken !== undefined;
  const receiver = socketMode
    ? new SocketModeReceiver({
        appToken,
        logger: boltLogger(logger),
        // Only the connection call goes here; it may retry (it posts nothing).
        installerOptions: { clientOptions: apiUrl ? { slackApiUrl: `${apiUrl}/` } : {} },
      })
    : new HTTPReceiver({
        signingSecret: signingSecret ?? '',
        endpoints: SLACK_EVENTS_PATH,
        logger: boltLogger(logger),
        // Acknowledge an event only once it is queued in the store: an instance killed in between loses nothing.
        processBeforeResponse: true,
      });
  // botId and botUserId given: Bolt skips its own auth.test and ignores the bot's own messages.
  const bolt = new BoltApp({
    token: botToken,
    botId: identity.botId,
    botUserId: identity.botUserId,
    receiver,
    logger: boltLogger(logger),
    clientOptions: { ...webClientOptions(apiUrl) },
  });
  bolt.error(async (error) => {
    const original = (error as { original?: unknown }).original ?? error;
    if (original instanceof RetryLater) {
      logger.warn({ reason: original.message }, 'Slack delivery not acknowledged; Slack will deliver it again');
      // Through to the receiver, which answers 500 instead of 200.
      throw error;
    }
    logger.error({ err: slackErrorCode(error) }, 'Slack listener failed');
  });
  return { bolt, receiver, socketMode };
}

/** Every event, command and click Slack sends, each to its handler. */
function registerListeners(bolt: BoltApp, base: { core: Core; api: SlackApi; tasks: BackgroundTasks; logger: Logger }, identity: Identity, accepting: () => boolean): void {
  const { core, api, tasks, logger } = base;
  const dedupe = core.deliveries('slack');
  const turnDeps = { core, api, threads: new ThreadMemory(core.state), tasks, logger };
  registerAccess(bolt, { core, api, logger }, identity);
  registerMessageEvents(bolt, { ...turnDeps, accepting, botId: identity.botId });
  registerCommands(bolt, { ...turnDeps, dedupe, accepting });
  registerApprovalClicks(bolt, { core, api, dedupe, tasks, logger });
  registerInstallPicks(bolt, { core, api, dedupe, tasks, logger });
  registerAssistantThreads(bolt, { core, api, logger });
  const home = registerAppHome(bolt, { core, api, logger });
  registerStopClicks(bolt, { core, api, dedupe, tasks, logger });
  registerTaskCancelClicks(bolt, { core, api, dedupe, tasks, logger, home });
  registerRoutineCommands(bolt, { core, tasks, logger });
  registerQuestionActions(bolt, { core, api, logger });
}

/** Connects to Slack, registers every listener, and gives the core its presenter and port. */
export async function startSlack(core: Core, http: HttpServer): Promise<RunningPlatform> {
  const { botToken, signingSecret, appToken, apiUrl } = core.settings.slack;
  if (!botToken || !(signingSecret || appToken)) throw new ConfigError('Slack needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode).');
  const logger = core.logger.child({ platform: 'slack' });
  const api = new SlackApi(new webApi.WebClient(botToken, { ...webClientOptions(apiUrl), logger: boltLogger(logger) }), logger);
  const identity = await whoAmI(api, apiUrl);

  const { bolt, receiver, socketMode } = boltFor(core, identity, logger);
  let connected = false;
  let accepting = true;
  const tasks = new BackgroundTasks(logger);
  registerListeners(bolt, { core, api, tasks, logger }, identity, () => accepting);
  // Kept after stop(): app.close() then marks the questions still open as expired, in their messages.
  core.approvals.addPresenter('slack', new SlackApprovalPresenter(api));
  core.mcp?.questions.addPresenter('slack', new SlackQuestionPresenter(api));
  const fileAccess = { token: botToken, maxBytes: core.settings.files.maxBytes, ...(apiUrl ? { apiUrl } : {}) };
  const removePort = core.turns.addPort('slack', slackPort(api, core.state, logger, undefined, fileAccess, identity));

  if (receiver instanceof SocketModeReceiver) {
    receiver.client.on('connected', () => (connected = true));
    receiver.client.on('disconnected', () => (connected = false));
    receiver.client.on('reconnecting', () => (connected = false));
    await bolt.start();
    connected = true;
  } else {
    http.route('POST', SLACK_EVENTS_PATH, async (req, res) => {
      // While stopping, a 503 makes Slack deliver the request again later (to a running instance).
      if (!accepting) {
        res.writeHead(503).end();
        return;
      }
      receiver.requestListener(req, res);
    });
  }
  logger.info({ mode: socketMode ? 'socket' : 'http', team: identity.teamId, bot: identity.botUserId }, 'Slack started');

  return {
    ready: () => accepting && (!socketMode || connected),
    async stop() {
      accepting = false;
      if (socketMode) await bolt.stop().catch((error: unknown) => logger.warn({ err: slackErrorCode(error) }, 'closing the Socket Mode connection failed'));
      const left = await tasks.drain(STOP_GRACE_MS);
      if (left > 0) logger.warn({ left }, 'Slack work still running at stop');
      removePort();
      api.close();
    },
  };
}

