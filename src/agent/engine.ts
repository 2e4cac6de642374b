import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { type Config, worldAllowsSkill, worldSettings, type WorldSettings } from '../config/config.ts';
import type { History, OpenedHistory } from '../chats/history.ts';
import type { TurnRun, TurnStops } from '../chats/stop.ts';
import type { Logger } from '../ops/log.ts';
import type { Metrics } from '../ops/metrics.ts';
import { budgetSpentText, type TokenBudgets } from '../chats/tokenBudget.ts';
import type { IncomingMessage, TurnPlatform, TurnSink } from '../platform/port.ts';
import { turnContextText } from './threadContext.ts';
import { fileBlocks, type LoadedFiles, loadMessageFiles, notReadNotice, placeInWorkspace } from './inputFiles.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import type { Skill } from '../skills/types.ts';
import type { Store } from '../store/types.ts';
import { CatalogCache } from './catalogCache.ts';
import { type LoopResult, runLoop } from './loop.ts';
import type { RetryPolicy } from './modelCall.ts';
import { turnOpening } from './opening.ts';
import { buildSystemPrompt, promptPlatform } from './systemPrompt.ts';
import { ourToolSet } from './tools/index.ts';
import { type ToolDeps, type TurnContext, turnContextOf } from './turnContext.ts';
import { historyOfTurn, replyOf, withFiles } from './turnMessages.ts';
import { emptyUsage, type UsageTotals } from '../chats/usage.ts';
import type { ChatWorkspace, ChatWorkspaces } from '../workspace/chatWorkspaces.ts';
import { type McpTools, privateReach } from '../mcp/mcpTools.ts';
import type { ServerSkillCatalog } from '../mcp/serverSkillCatalog.ts';
import { openServerSkills, serverCatalogLines } from './turnServerSkills.ts';
import { joinToolSets, type ToolSet } from '../tools/contract.ts';

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
  /** A world's settings; default: the config's (src/app.ts adds which installed skills belong elsewhere). */
  settingsFor?: (worldId: string) => WorldSettings;
  /** The skills MCP servers serve (src/mcp/serverSkillCatalog.ts): they join the catalog of worlds that may use them. */
  serverSkills?: ServerSkillCatalog<Skill>;
  /** Worlds' daily token budgets (`dailyTokenBudget`): a turn opens only under it, and counts its spend as it closes. */
  budgets?: Pick<TokenBudgets, 'allows' | 'add'>;
}

export interface TurnOutcome {
  turnId: string;
  /** `failed`: our own side broke (store, platform); the user was told, the error logged. */
  /** `stopped`: a person stopped it (the model stream and any script were ended). */
  /** `over_budget`: the world spent its daily token budget; the model was not called. */
  status: 'answered' | 'model_unavailable' | 'model_refused' | 'capped' | 'failed' | 'stopped' | 'over_budget';
  reply: string;
  usage: UsageTotals;
  durationMs: number;
  /** Of durationMs, the time spent waiting on the model. */
  modelMs: number;
}

/** A turn once opened: what running the model and closing the turn share. */
interface OpenTurn {
  message: IncomingMessage;
  sink: TurnSink;
  log: Logger;
  started: number;
  run: TurnRun;
  settings: WorldSettings;
  history: OpenedHistory;
  turn: TurnContext;
  files: LoadedFiles;
  /** What the person's message brings besides its words (thread context, files), before them in the opening. */
  filesIn: ContentBlockParam[];
  opening: MessageParam[];
  system: string;
  tools: ToolSet;
  /** Lines the person reads under the answer (a file not delivered, a server down). */
  notices: string[];
  /** The workspace, when something of the turn opened it (it is then saved as the turn closes). */
  workspaceOpened(): Promise<ChatWorkspace> | undefined;
}

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
      return await this.answer({ message, sink, log, started, run }, turnId, platform);
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

  /**
   * The turn in three steps: open it, run the model, close it. Its own failures (store down, platform refusing a
   * post) are runTurn's to tell the person.
   */
  private async answer(begun: Pick<OpenTurn, 'message' | 'sink' | 'log' | 'started' | 'run'>, turnId: string, platform: TurnPlatform): Promise<TurnOutcome> {
    const open = await this.open(begun, turnId, platform);
    if ('status' in open) return open;
    return this.close(open, await this.runModel(open));
  }

  /**
   * Opens the turn: the world's budget, one registry snapshot, the chat's history, the person's files, the thread's
   * context, the skills that join (the opening messages), the system prompt and the turn's tool sets. A world over
   * its budget gets the sentence saying so, and nothing else happens.
   */
  private async open(begun: Pick<OpenTurn, 'message' | 'sink' | 'log' | 'started' | 'run'>, turnId: string, platform: TurnPlatform): Promise<OpenTurn | TurnOutcome> {
    const { message, log } = begun;
    const settings = this.deps.settingsFor?.(message.worldId) ?? worldSettings(this.deps.config, message.worldId);
    // Most worlds have no budget: they pay no await for one.
    const refused = settings.dailyTokenBudget === undefined ? undefined : await this.overBudget(begun, turnId, settings.dailyTokenBudget);
    if (refused !== undefined) return refused;
    // One snapshot for the whole turn: a registry reload lands between turns, never inside one.
    const snapshot = this.deps.registry.current();
    const history = await this.deps.history.open(message.chatId);
    // Fetched on whichever instance runs the turn (a re-run fetches them again): the inbox keeps no bytes.
    const fetched = await loadMessageFiles(message.files ?? [], platform.fetchFile?.bind(platform), this.deps.config.files);
    // The chat's files, as the last run (on any instance) left them: opened only when something of the turn uses
    // them (the person's files, a run, the editor), so a plain turn does no workspace work at all.
    let opened: Promise<ChatWorkspace> | undefined;
    const openWorkspace = () => (opened ??= this.deps.workspaces.open(message.chatId));
    const workspace = fetched.files.length > 0 ? await openWorkspace() : this.deps.workspaces.describe(message.chatId);
    const files = fetched.files.length > 0 ? await placeInWorkspace(workspace, fetched) : fetched;
    // What people said around the message: data in the person's turn, never in the (cached) system prompt.
    const context = await turnContextText(platform, message, history.messages.length > 0, this.deps.config.context, log);
    const notices: string[] = [];
    const mcpServers = this.deps.mcp?.serversFor(settings.mcp).map((server) => server.name) ?? [];
    const serverSkills = await openServerSkills(this.deps.serverSkills, { worldId: message.worldId, requesterId: message.userId }, settings, snapshot);
    const parts = { settings, snapshot, history: history.messages, workspace, openWorkspace, files: files.files, mcpServers, fileLimits: this.deps.config.files, ...(serverSkills === undefined ? {} : { serverSkills }) };
    const turn = turnContextOf({ ...begun, turnId, signal: begun.run.signal, notices }, parts);
    const filesIn: ContentBlockParam[] = [...(context === undefined ? [] : [{ type: 'text' as const, text: context }]), ...fileBlocks(files)];
    const opening = withFiles(await turnOpening(this.deps, turn, message), filesIn);
    const catalog = this.catalogs.forWorld(snapshot, settings, serverCatalogLines(serverSkills, settings));
    const system = buildSystemPrompt(catalog.text, promptPlatform(message.worldId));
    const ours = ourToolSet({ deps: this.deps, turn, catalogComplete: catalog.complete });
    const tools = this.deps.mcp === undefined ? ours : joinToolSets([ours, await this.mcpTools(this.deps.mcp, turn, settings, platform)]);
    log.info({ worldId: message.worldId, skills: snapshot.list().length }, 'turn started');
    return { ...begun, settings, history, turn, files, filesIn, opening, system, tools, notices, workspaceOpened: () => opened };
  }

  /** The sentence a world over its daily budget gets instead of an answer; undefined: the turn may run. */
  private async overBudget(begun: Pick<OpenTurn, 'message' | 'sink' | 'log' | 'started'>, turnId: string, budget: number): Promise<TurnOutcome | undefined> {
    const { message, log } = begun;
    if (this.deps.budgets === undefined || (await this.deps.budgets.allows(message.worldId, budget))) return undefined;
    this.deps.metrics?.budgetRefusals.inc({ world: message.worldId });
    log.warn({ worldId: message.worldId, budget }, 'daily token budget spent: message not answered');
    const reply = budgetSpentText(budget);
    await begun.sink.reply(reply);
    return { turnId, status: 'over_budget', reply, usage: emptyUsage(), durationMs: performance.now() - begun.started, modelMs: 0 };
  }

  /** The world's MCP servers' tool set (empty where it has none). */
  private mcpTools(tools: McpTools, turn: TurnContext, settings: WorldSettings, platform: TurnPlatform): Promise<ToolSet> {
    const reach = privateReach(platform, turn.chatId, turn.requesterId);
    const { approvalTimeoutMs, mcp, mcpNoApproval, network, egressAllow, credentials } = settings;
    return tools.forTurn({ ...turn, approvalTimeoutMs, mcp, mcpNoApproval, network, egressAllow, credentials, ...reach });
  }

  /** Runs the model: the tool loop over the turn's tool sets, its text streamed to the sink. */
  private runModel(open: OpenTurn): Promise<LoopResult> {
    const { log, sink, turn, tools } = open;
    return runLoop({
      client: this.deps.client,
      model: this.deps.config.model,
      maxTokens: this.deps.config.agent.maxTokens,
      system: open.system,
      tools,
      history: open.history.messages,
      opening: open.opening,
      maxToolRounds: this.deps.config.agent.maxToolRounds,
      retry: this.deps.retry,
      signal: open.run.signal,
      callbacks: {
        onText: sink.partial?.bind(sink),
        onRetry: (attempt, reason, delayMs) => {
          log.warn({ attempt, reason, delayMs }, 'model call failed, retrying');
          sink.retrying?.(reason);
        },
        onTool: (name, input) => {
          log.info({ tool: name, input }, 'tool call');
          turn.progress(tools.progress(name, input));
        },
      },
    });
  }

  /**
   * Closes the turn: its messages into history, the workspace saved, the answer shown (or the stop), the turn
   * counted and logged, and the world's spend counted against its budget.
   */
  private async close(open: OpenTurn, result: LoopResult): Promise<TurnOutcome> {
    const { message, log, run, sink } = open;
    const stoppedBy = 'stopped' in result ? (run.stoppedBy ?? message.userId) : undefined;
    const usage = { ...result.usage, turns: 1 };
    await open.history.appendTurn(open.turn.turnId, historyOfTurn(result.messages, open.filesIn, stoppedBy !== undefined), usage);
    // Before the answer shows: once the person reads it, the next turn may run on another instance.
    const opened = open.workspaceOpened();
    if (opened !== undefined) {
      await opened;
      await this.deps.workspaces.save(message.chatId);
    } else await this.deps.workspaces.touch(message.chatId);
    const { status, reply: answer, error } = replyOf(result, stoppedBy);
    if (stoppedBy !== undefined) log.info({ by: stoppedBy }, 'turn stopped');
    else if (error !== undefined) log.error({ err: error }, status === 'model_refused' ? 'model refused the request' : 'model unavailable');
    // Files over a bound (not read, or not delivered) are named to the person, with the reason.
    const notice = [notReadNotice(open.files.notRead), ...open.notices.map((line) => `_${line}_`)].filter(Boolean).join('\n');
    const reply = notice !== '' && stoppedBy === undefined ? `${answer}\n\n${notice}` : answer;
    // No longer stoppable from here: a "stop" sent while the answer shows is told nothing is running.
    await run.end().catch((endError: unknown) => log.warn({ err: endError }, 'forgetting the running turn failed'));
    if (stoppedBy !== undefined && sink.stopped) await sink.stopped(stoppedBy);
    else await sink.reply(reply);
    const durationMs = performance.now() - open.started;
    this.record(status, durationMs, result.modelMs, usage);
    const { input, output, cacheRead, cacheCreation } = usage;
    log.info({ status, model: this.deps.config.model, rounds: result.rounds, input, output, cacheRead, cacheCreation, ms: Math.round(durationMs), modelMs: Math.round(result.modelMs) }, 'turn finished');
    await this.countSpend(open, usage);
    return { turnId: open.turn.turnId, status, reply, usage, durationMs, modelMs: result.modelMs };
  }

  /** After the answer (a turn is never cut off half way): a world with a budget keeps its day's spend. */
  private async countSpend(open: OpenTurn, usage: UsageTotals): Promise<void> {
    if (open.settings.dailyTokenBudget === undefined || this.deps.budgets === undefined) return;
    const worldId = open.message.worldId;
    await this.deps.budgets.add(worldId, usage).catch((error: unknown) => open.log.warn({ err: error, worldId }, 'counting the world\'s spend failed'));
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
