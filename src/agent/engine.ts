import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { type Config, worldAllowsSkill, worldSettings, type WorldSettings } from '../config/config.ts';
import type { History } from '../chats/history.ts';
import type { TurnRun, TurnStops } from '../chats/stop.ts';
import type { Logger } from '../ops/log.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { IncomingMessage, TurnPlatform, TurnSink } from '../platform/port.ts';
import { turnContextText } from './threadContext.ts';
import { fileBlocks, historyFileBlocks, historyToolImages, loadMessageFiles, notReadNotice, placeInWorkspace } from './inputFiles.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import type { Store } from '../store/types.ts';
import { CatalogCache } from './catalogCache.ts';
import { runLoop } from './loop.ts';
import { ModelRequestError, type RetryPolicy } from './modelCall.ts';
import { turnOpening } from './opening.ts';
import { runSkillTool } from './skillTools.ts';
import { buildSystemPrompt, promptPlatform } from './systemPrompt.ts';
import { toolsFor } from './tools.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';
import { emptyUsage, type UsageTotals } from '../chats/usage.ts';
import type { ChatWorkspace, ChatWorkspaces } from '../workspace/chatWorkspaces.ts';
import { type McpTools, privateReach } from '../mcp/mcpTools.ts';

export interface EngineDeps extends ToolDeps {
  config: Config;
  client: Anthropic;
  store: Store;
  registry: SkillRegistry;
  history: History;
  /** Running turns, and stops asked for them from any instance. */
  stops: TurnStops;
  metrics?: Metrics;
  retry?: RetryPolicy;
  /** Each chat's files (/workspace), opened at the start of a turn and saved at its end. */
  workspaces: ChatWorkspaces;
  /** The world's MCP tools (src/mcp), offered beside ours; absent: none. */
  mcp?: McpTools;
  /** A world's settings; default: the config's (src/app.ts adds which installed skills belong elsewhere). */
  settingsFor?: (worldId: string) => WorldSettings;
}

export interface TurnOutcome {
  turnId: string;
  /** `failed`: our own side broke (store, platform); the user was told, the error logged. */
  /** `stopped`: a person stopped it (the model stream and any script were ended). */
  /** `over_budget`: the world spent its daily token budget; the model was not called (src/app.ts). */
  status: 'answered' | 'model_unavailable' | 'model_refused' | 'capped' | 'failed' | 'stopped' | 'over_budget';
  reply: string;
  usage: UsageTotals;
  durationMs: number;
  /** Of durationMs, the time spent waiting on the model. */
  modelMs: number;
}

/** The opening's first message (the person's words) with the files' blocks before its text. */
function withFiles(opening: MessageParam[], blocks: ContentBlockParam[]): MessageParam[] {
  const [first, ...rest] = opening;
  if (blocks.length === 0 || first === undefined || typeof first.content !== 'string') return opening;
  const text = first.content.trim() === '' ? '(No words: the files above are the message.)' : first.content;
  return [{ role: 'user', content: [...blocks, { type: 'text', text }] }, ...rest];
}

/** The person's message as its text alone (the file blocks are put back in their history form). */
function textOnly(message: MessageParam): MessageParam {
  if (typeof message.content === 'string') return message;
  const text = message.content.at(-1);
  return { role: message.role, content: text?.type === 'text' ? text.text : '' };
}

/** What a stopped turn answers where the platform has no way of naming the person (the terminal). */
export const stoppedText = (by: string) => `Stopped by ${by}.`;

const unreachableReply =
  'I could not reach Claude just now, so I have no answer yet. Your message is kept: send another message to try again.';

/**
 * The core of skillbot: runs one turn of a user message from any adapter and sends the answer back through the
 * adapter's sink. The dispatcher (src/chats/dispatcher.ts) calls it, one turn at a time per chat. It knows nothing
 * of Slack or Discord.
 */
export class Engine {
  private readonly catalogs: CatalogCache;

  constructor(private readonly deps: EngineDeps) {
    this.catalogs = new CatalogCache(deps.config.agent.catalogBudgetChars);
  }

  /**
   * Runs one turn now; the caller serialises a chat's turns (the durable queue, under its chat lease). `turnId` is
   * stable across re-runs of the same message. Resolves when the turn is over; never rejects for model or skill
   * failures, nor for our own (the person is told).
   */
  async runTurn(message: IncomingMessage, sink: TurnSink, turnId: string, platform: TurnPlatform): Promise<TurnOutcome> {
    const started = performance.now();
    const log = this.deps.logger.child({ chatId: message.chatId, turnId });
    let run: TurnRun | undefined;
    try {
      run = await this.deps.stops.begin({ turnId, chatId: message.chatId, worldId: message.worldId, requesterId: message.userId });
      return await this.answer(message, sink, turnId, log, started, run, platform);
    } catch (error) {
      log.error({ err: error }, 'turn failed');
      const reply = 'Something went wrong on my side and this message was not answered. Please try again in a moment.';
      await Promise.resolve()
        .then(() => sink.reply(reply))
        .catch((sinkError: unknown) => log.error({ err: sinkError }, 'could not tell the user about the failure'));
      const durationMs = performance.now() - started;
      this.record('failed', durationMs, 0, emptyUsage());
      return { turnId, status: 'failed', reply, usage: emptyUsage(), durationMs, modelMs: 0 };
    } finally {
      await run?.end().catch((error: unknown) => log.warn({ err: error }, 'forgetting the running turn failed'));
    }
  }

  /** Starts the chat afresh (`/new`): its history is forgotten; the next message is the first. */
  async newConversation(chatId: string): Promise<void> {
    await this.deps.history.clear(chatId);
  }

  /** Running token totals of a chat. */
  usage(chatId: string): Promise<UsageTotals> {
    return this.deps.history.usage(chatId);
  }

  /** The turn itself; its own failures (store down, platform refusing a post) are runTurn's to tell the person. */
  private async answer(
    message: IncomingMessage,
    sink: TurnSink,
    turnId: string,
    log: Logger,
    started: number,
    run: TurnRun,
    platform: TurnPlatform,
  ): Promise<TurnOutcome> {
    const settings = this.deps.settingsFor?.(message.worldId) ?? worldSettings(this.deps.config, message.worldId);
    // One snapshot for the whole turn: a registry reload lands between turns, never inside one.
    const snapshot = this.deps.registry.current();
    const chatHistory = await this.deps.history.open(message.chatId);
    const history = chatHistory.messages;
    // Fetched on whichever instance runs the turn (a re-run fetches them again): the inbox keeps no bytes.
    const fetched = await loadMessageFiles(message.files ?? [], platform.fetchFile?.bind(platform), this.deps.config.files);
    // The chat's files, as the last run (on any instance) left them: opened only when something of the turn uses
    // them (the person's files, a run, the editor), so a plain turn does no workspace work at all.
    let opened: Promise<ChatWorkspace> | undefined;
    const openWorkspace = () => (opened ??= this.deps.workspaces.open(message.chatId));
    const workspace = fetched.files.length > 0 ? await openWorkspace() : this.deps.workspaces.describe(message.chatId);
    const loaded = fetched.files.length > 0 ? await placeInWorkspace(workspace, fetched) : fetched;
    // What people said around the message: data in the person's turn, never in the (cached) system prompt.
    const context = await turnContextText(platform, message, history.length > 0, this.deps.config.context, log);
    let approvalsAsked = 0;
    const notices: string[] = [];
    const turn: TurnContext = {
      turnId,
      nextApprovalKey: () => `${message.chatId}/${turnId}/${approvalsAsked++}`,
      worldId: message.worldId,
      chatId: message.chatId,
      requesterId: message.userId,
      ...(message.origin?.kind === 'routine' ? { routineId: message.origin.id } : {}),
      settings,
      mcpServers: this.deps.mcp?.serversFor(settings.mcp).map((server) => server.name) ?? [],
      snapshot,
      history,
      signal: run.signal,
      files: loaded.files,
      workspace,
      openWorkspace,
      fileLimits: this.deps.config.files,
      ...(sink.upload ? { upload: sink.upload.bind(sink) } : {}),
      notice: (text) => void notices.push(text),
      progress: (text) => void Promise.resolve(sink.progress(text)).catch((error) => log.warn({ err: error }, 'progress update failed')),
    };
    const filesIn: ContentBlockParam[] = [...(context === undefined ? [] : [{ type: 'text' as const, text: context }]), ...fileBlocks(loaded)];
    const opening: MessageParam[] = withFiles(await turnOpening(this.deps, turn, message), filesIn);
    const catalog = this.catalogs.forWorld(snapshot, settings);
    const system = buildSystemPrompt(catalog.text, promptPlatform(message.worldId));
    const reach = privateReach(platform, message.chatId, message.userId);
    const mcp = await this.deps.mcp?.forTurn({ ...turn, approvalTimeoutMs: settings.approvalTimeoutMs, mcp: settings.mcp, mcpNoApproval: settings.mcpNoApproval, network: settings.network, egressAllow: settings.egressAllow, credentials: settings.credentials, ...reach });
    log.info({ worldId: message.worldId, skills: snapshot.list().length }, 'turn started');
    const ours = toolsFor({ shell: settings.bash, search: !catalog.complete, followups: this.deps.followups !== undefined });
    const result = await runLoop({
      client: this.deps.client,
      model: this.deps.config.model,
      maxTokens: this.deps.config.agent.maxTokens,
      system,
      tools: mcp === undefined ? ours : () => [...ours, ...mcp.definitions()],
      history,
      opening,
      maxToolRounds: this.deps.config.agent.maxToolRounds,
      retry: this.deps.retry,
      signal: run.signal,
      runTool: (name, input) => (mcp?.handles(name) ? mcp.run(name, input) : runSkillTool(this.deps, turn, name, input)),
      callbacks: {
        onText: sink.partial?.bind(sink),
        onRetry: (attempt, reason, delayMs) => {
          log.warn({ attempt, reason, delayMs }, 'model call failed, retrying');
          sink.retrying?.(reason);
        },
        onTool: (name, input) => {
          log.info({ tool: name, input }, 'tool call');
          turn.progress(progressText(name, input));
        },
      },
    });
    const stoppedBy = 'stopped' in result ? (run.stoppedBy ?? message.userId) : undefined;
    // The turn's messages are kept even when the model failed: the user's words are never lost. A stopped turn
    // says so in the history, so the model does not take up the stopped work on its own next turn.
    const turnMessages = filesIn.length === 0 ? historyToolImages(result.messages) : withFiles(result.messages.slice(0, 1).map(textOnly), historyFileBlocks(filesIn)).concat(historyToolImages(result.messages.slice(1)));
    const kept: MessageParam[] =
      stoppedBy === undefined ? turnMessages : [...turnMessages, { role: 'assistant', content: '(The person stopped this turn here.)' }];
    const usage = { ...result.usage, turns: 1 };
    await chatHistory.appendTurn(turnId, kept, usage);
    // Before the answer shows: once the person reads it, the next turn may run on another instance.
    if (opened !== undefined) {
      await opened;
      await this.deps.workspaces.save(message.chatId);
    } else await this.deps.workspaces.touch(message.chatId);
    let status: TurnOutcome['status'];
    let reply: string;
    if (stoppedBy !== undefined) {
      status = 'stopped';
      reply = stoppedText(stoppedBy);
      log.info({ by: stoppedBy }, 'turn stopped');
    } else if (result.ok) {
      status = result.capped ? 'capped' : 'answered';
      reply = result.reply || '(The model finished without a written answer.)';
    } else if ('error' in result && result.error instanceof ModelRequestError) {
      status = 'model_refused';
      reply = `I could not get an answer: ${result.error.message}`;
      log.error({ err: result.error.message }, 'model refused the request');
    } else {
      status = 'model_unavailable';
      reply = unreachableReply;
      log.error({ err: 'error' in result ? result.error.message : 'stopped' }, 'model unavailable');
    }
    // Files over a bound (not read, or not delivered) are named to the person, with the reason.
    const notice = [notReadNotice(loaded.notRead), ...notices.map((line) => `_${line}_`)].filter(Boolean).join('\n');
    if (notice !== '' && stoppedBy === undefined) reply = `${reply}\n\n${notice}`;
    // No longer stoppable from here: a "stop" sent while the answer shows is told nothing is running.
    await run.end().catch((error: unknown) => log.warn({ err: error }, 'forgetting the running turn failed'));
    if (stoppedBy !== undefined && sink.stopped) await sink.stopped(stoppedBy);
    else await sink.reply(reply);
    const durationMs = performance.now() - started;
    this.record(status, durationMs, result.modelMs, usage);
    log.info(
      {
        status,
        model: this.deps.config.model,
        rounds: result.rounds,
        input: usage.input,
        output: usage.output,
        cacheRead: usage.cacheRead,
        cacheCreation: usage.cacheCreation,
        ms: Math.round(durationMs),
        modelMs: Math.round(result.modelMs),
      },
      'turn finished',
    );
    return { turnId, status, reply, usage, durationMs, modelMs: result.modelMs };
  }

  private record(status: TurnOutcome['status'], durationMs: number, modelMs: number, usage: UsageTotals): void {
    const metrics = this.deps.metrics;
    if (!metrics) return;
    metrics.turns.inc({ status });
    metrics.turnSeconds.observe({ status }, durationMs / 1000);
    metrics.modelSeconds.observe(modelMs / 1000);
    metrics.cacheReadTokens.inc({}, usage.cacheRead);
    metrics.cacheCreationTokens.inc({}, usage.cacheCreation);
  }

  /** The skills a world allows (the model's view starts here; App Home and suggestions use it too). */
  allowedSkills(worldId: string) {
    const settings = this.deps.settingsFor?.(worldId) ?? worldSettings(this.deps.config, worldId);
    return this.deps.registry
      .current()
      .list()
      .filter((skill) => worldAllowsSkill(settings, skill.id));
  }

  /** The skills people may run here with `/skill` (Claude Code's `user-invocable: false` ones are left out). */
  invocableSkills(worldId: string) {
    return this.allowedSkills(worldId).filter((skill) => skill.userInvocable);
  }
}

/** What a tool call is shown as while it runs ("Loading release-notes…"). */
function progressText(tool: string, input: unknown): string {
  const skillId = (input as { skill_id?: unknown } | undefined)?.skill_id;
  const named = typeof skillId === 'string' && skillId.length <= 100 ? skillId : undefined;
  if (tool === 'load_skill') return named ? `Loading ${named}…` : 'Loading a skill…';
  if (tool === 'find_skills') return 'Searching the skills…';
  if (tool === 'str_replace_based_edit_tool') return editorProgress(input);
  if (tool === 'bash') return 'Using the shell…';
  if (tool.startsWith('mcp__') || tool === 'call_mcp_tool') return 'Calling a tool…';
  if (tool === 'find_mcp_tools') return 'Searching the tools…';
  if (tool === 'schedule_followup') return 'Scheduling a follow-up…';
  return 'Running a skill script…';
}

function editorProgress(input: unknown): string {
  const { command, path } = (input ?? {}) as { command?: unknown; path?: unknown };
  const where = typeof path === 'string' && path.length <= 200 ? ` ${path}` : '';
  return command === 'view' ? `Reading${where}…` : `Editing${where}…`;
}

