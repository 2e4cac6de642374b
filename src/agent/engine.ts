import { randomUUID } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { type Config, worldAllowsSkill, worldSettings } from '../config.ts';
import type { History } from '../chats/history.ts';
import type { TurnQueue } from '../chats/turnQueue.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { IncomingMessage, TurnSink } from '../platform.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import type { Store } from '../store/types.ts';
import { CatalogCache } from './catalogCache.ts';
import { runLoop } from './loop.ts';
import { ModelRequestError, type RetryPolicy } from './modelCall.ts';
import { turnOpening } from './opening.ts';
import { runSkillTool } from './skillTools.ts';
import { buildSystemPrompt } from './systemPrompt.ts';
import { TOOL_DEFINITIONS } from './tools.ts';
import type { ToolDeps, TurnContext } from './turnContext.ts';
import { emptyUsage, mergeUsage, type UsageTotals } from './usage.ts';

export interface EngineDeps extends ToolDeps {
  config: Config;
  client: Anthropic;
  store: Store;
  registry: SkillRegistry;
  history: History;
  queue: TurnQueue;
  metrics?: Metrics;
  retry?: RetryPolicy;
}

export interface TurnOutcome {
  turnId: string;
  /** `failed`: our own side broke (store, platform); the user was told, the error logged. */
  status: 'answered' | 'model_unavailable' | 'model_refused' | 'capped' | 'failed';
  reply: string;
  usage: UsageTotals;
  durationMs: number;
  /** Of durationMs, the time spent waiting on the model. */
  modelMs: number;
}

const unreachableReply =
  'I could not reach Claude just now, so I have no answer yet. Your message is kept: send another message to try again.';

/**
 * The core of skillbot: takes a user message from any adapter, runs one turn at a time per chat, and sends the
 * answer back through the adapter's sink. It knows nothing of Slack or Discord.
 */
export class Engine {
  private readonly catalogs: CatalogCache;

  constructor(private readonly deps: EngineDeps) {
    this.catalogs = new CatalogCache(deps.config.agent.catalogBudgetChars);
  }

  /** Queues a message on its chat; resolves when its turn is over. Never rejects for model or skill failures. */
  handleMessage(message: IncomingMessage, sink: TurnSink): Promise<TurnOutcome> {
    return this.deps.queue.enqueue(message.chatId, () => this.guardedTurn(message, sink));
  }

  /**
   * Runs one turn now, outside the in-process queue: for callers that serialise a chat's turns themselves (the
   * durable queue, under its chat lease). `turnId` is stable across re-runs of the same message.
   */
  runTurnNow(message: IncomingMessage, sink: TurnSink, turnId: string): Promise<TurnOutcome> {
    return this.guardedTurn(message, sink, turnId);
  }

  /** Running token totals of a chat. */
  async usage(chatId: string): Promise<UsageTotals> {
    return (await this.deps.store.get<UsageTotals>('usage', chatId)) ?? emptyUsage();
  }

  /** A turn whose own failures (store down, platform refusing a post) end in one message to the user, not a throw. */
  private async guardedTurn(message: IncomingMessage, sink: TurnSink, turnId = randomUUID().slice(0, 8)): Promise<TurnOutcome> {
    const started = performance.now();
    const log = this.deps.logger.child({ chatId: message.chatId, turnId });
    try {
      return await this.runTurn(message, sink, turnId, log, started);
    } catch (error) {
      log.error({ err: error }, 'turn failed');
      const reply = 'Something went wrong on my side and this message was not answered. Please try again in a moment.';
      await Promise.resolve()
        .then(() => sink.reply(reply))
        .catch((sinkError: unknown) => log.error({ err: sinkError }, 'could not tell the user about the failure'));
      const durationMs = performance.now() - started;
      this.record('failed', durationMs, 0, emptyUsage());
      return { turnId, status: 'failed', reply, usage: emptyUsage(), durationMs, modelMs: 0 };
    }
  }

  private async runTurn(message: IncomingMessage, sink: TurnSink, turnId: string, log: Logger, started: number): Promise<TurnOutcome> {
    const settings = worldSettings(this.deps.config, message.worldId);
    // One snapshot for the whole turn: a registry reload lands between turns, never inside one.
    const snapshot = this.deps.registry.current();
    const history = await this.deps.history.load(message.chatId);
    let approvalsAsked = 0;
    const turn: TurnContext = {
      turnId,
      nextApprovalKey: () => `${message.chatId}/${turnId}/${approvalsAsked++}`,
      worldId: message.worldId,
      chatId: message.chatId,
      requesterId: message.userId,
      settings,
      snapshot,
      history,
      progress: (text) => void Promise.resolve(sink.progress(text)).catch((error) => log.warn({ err: error }, 'progress update failed')),
    };
    const opening: MessageParam[] = await turnOpening(this.deps, turn, message);
    const system = buildSystemPrompt(this.catalogs.forWorld(snapshot, settings));
    log.info({ worldId: message.worldId, skills: snapshot.list().length }, 'turn started');
    const result = await runLoop({
      client: this.deps.client,
      model: this.deps.config.model,
      maxTokens: this.deps.config.agent.maxTokens,
      system,
      tools: TOOL_DEFINITIONS,
      history,
      opening,
      maxToolRounds: this.deps.config.agent.maxToolRounds,
      retry: this.deps.retry,
      runTool: (name, input) => runSkillTool(this.deps, turn, name, input),
      callbacks: {
        onText: sink.partial?.bind(sink),
        onRetry: (attempt, reason, delayMs) => {
          log.warn({ attempt, reason, delayMs }, 'model call failed, retrying');
          sink.retrying?.(reason);
        },
        onTool: (name, input) => {
          log.info({ tool: name, input }, 'tool call');
          turn.progress(name === 'load_skill' ? 'Loading a skill…' : 'Running a skill script…');
        },
      },
    });
    // The turn's messages are kept even when the model failed: the user's words are never lost.
    await this.deps.history.appendTurn(message.chatId, turnId, result.messages);
    const usage = { ...result.usage, turns: 1 };
    await this.deps.store.set('usage', message.chatId, mergeUsage(await this.usage(message.chatId), usage));
    let status: TurnOutcome['status'];
    let reply: string;
    if (result.ok) {
      status = result.capped ? 'capped' : 'answered';
      reply = result.reply || '(The model finished without a written answer.)';
    } else if (result.error instanceof ModelRequestError) {
      status = 'model_refused';
      reply = `I could not get an answer: ${result.error.message}`;
      log.error({ err: result.error.message }, 'model refused the request');
    } else {
      status = 'model_unavailable';
      reply = unreachableReply;
      log.error({ err: result.error.message }, 'model unavailable');
    }
    await sink.reply(reply);
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
    metrics.turnSeconds.observe(durationMs / 1000);
    metrics.modelSeconds.observe(modelMs / 1000);
    metrics.cacheReadTokens.inc({}, usage.cacheRead);
    metrics.cacheCreationTokens.inc({}, usage.cacheCreation);
  }

  /** Whether a world may use a skill (adapters use it for `/skills` and `/skill`). */
  allowedSkills(worldId: string) {
    const settings = worldSettings(this.deps.config, worldId);
    return this.deps.registry
      .current()
      .list()
      .filter((skill) => worldAllowsSkill(settings, skill.id));
  }
}
