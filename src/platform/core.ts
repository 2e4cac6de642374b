// The narrow core a platform adapter is given instead of the whole App: what a platform needs of the bot, and
// nothing it could use to run a turn's parts itself (no engine, registry, store or installer). Built once per
// process by createApp from its parts; every member is a delegation, so a platform adds no state of its own here.
import type { Access } from '../access/access.ts';
import type { TurnOutcome } from '../agent/engine.ts';
import type { ApprovalRecord, ApprovalRuntime, Grants } from '../approvals/index.ts';
import type { Config } from '../config/config.ts';
import { DeliveryDedupe } from '../chats/deliveryDedupe.ts';
import type { AcceptResult, Dispatcher } from '../chats/dispatcher.ts';
import type { TurnStops } from '../chats/stop.ts';
import { formatUsage, type UsageTotals } from '../chats/usage.ts';
import { type InstallCommand, type Installer, type InstallPlace, runInstallCommand } from '../install/index.ts';
import type { Mcp } from '../mcp/fromConfig.ts';
import type { McpQuestions } from '../mcp/questions/questions.ts';
import type { TaskRecord } from '../mcp/taskBook.ts';
import type { Logger } from '../ops/log.ts';
import type { Metrics } from '../ops/metrics.ts';
import { hookLine, routineLine } from '../routines/commands.ts';
import type { RoutineService } from '../routines/service.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import type { Skill } from '../skills/types.ts';
import type { Store } from '../store/types.ts';
import { adapterState, type AdapterState } from './adapterState.ts';
import { type McpCommandPlace, runMcpCommand } from './mcpCommand.ts';
import type { IncomingMessage } from './port.ts';

/** The settings a platform reads: its own credentials and the bounds of files it fetches. */
export type PlatformSettings = Pick<Config, 'slack' | 'discord' | 'files' | 'install' | 'outputsDir'>;

/** Messages into the one queue, and the turns they start. */
export interface CoreTurns {
  /** Queues a message under its delivery keys (dedupe); `undefined` claims the keys only. */
  accept(message: IncomingMessage | undefined, deliveryKeys: string[]): Promise<AcceptResult>;
  /** The terminal's way in: queues the message and waits for its turn's outcome. */
  submit(message: IncomingMessage): Promise<TurnOutcome>;
  addPort: Dispatcher<TurnOutcome>['addPort'];
  stop: TurnStops['request'];
  /** Forgets the chat's history (the terminal's `/new`). */
  newConversation(chatId: string): Promise<void>;
  /** The chat's token totals and the person's limits, as one private answer (`/usage`). */
  usageText(chatId: string, worldId: string, userId: string): Promise<string>;
}

/** The skills people may name in a world (`/skills`, `/skill ID`, autocomplete, suggested prompts). */
export interface CoreSkills {
  forWorld(worldId: string): Skill[];
  /** Up to `n` ids anywhere in the registry close to `id` (a typo's hint). */
  closest(id: string, n: number): string[];
  /** Whether any world could name it (`user-invocable` and known). */
  invocable(id: string): boolean;
  /**
   * Whether it names a skill of a configured MCP server (`<server>:<path>`): the turn checks it, since only it lists
   * what that server serves this person here (and names the id when the skill is not offered).
   */
  served(id: string): boolean;
}

/** Answering questions: presenters show them, clicks answer them. */
export interface CoreApprovals {
  addPresenter: ApprovalRuntime['addPresenter'];
  respond: ApprovalRuntime['respond'];
  on: ApprovalRuntime['on'];
  off: ApprovalRuntime['off'];
  /** The stored question a click names (its subject, world and message), or undefined. */
  record(approvalId: string): Promise<ApprovalRecord | undefined>;
}

/** A person's own MCP accounts (servers signed in to one by one). */
export interface CoreMcp {
  accounts: Mcp['accounts'];
  disconnect: Mcp['disconnect'];
  pendingLink(server: string, personId: string): Promise<string | undefined>;
  connected(server: string, personId: string): Promise<boolean>;
  /** A Cancel click on an MCP task: what the clicker alone is told (cancelling, or why not). */
  cancelTask(taskId: string, userId: string): Promise<string>;
  /** The calls running as tasks, in every world, oldest first (App Home filters them for its viewer). */
  runningTasks(): Promise<McpTaskView[]>;
  /** Servers' questions (docs/mcp.md, "Questions"): a platform shows them and hands back a person's click or form. */
  questions: Pick<McpQuestions, 'addPresenter' | 'answer' | 'opening' | 'keepDraft' | 'draft'>;
  /** `/mcp attach SERVER URI`, `/mcp prompt SERVER NAME [args]`, run and worded once for every platform. */
  command(place: McpCommandPlace, text: string): Promise<void>;
}

/** A running MCP task as a platform lists it (the CLI's `skillbot mcp tasks` fields, plus its requester). */
export type McpTaskView = Pick<TaskRecord, 'id' | 'server' | 'tool' | 'worldId' | 'chatId' | 'requesterId' | 'status' | 'startedAt' | 'statusMessage'>;

/** `/skills install|installed|update|remove`, run and worded once for every platform, and a collection's picks. */
export interface CoreInstall {
  run(place: InstallPlace, command: InstallCommand): Promise<void>;
  pick: Installer['pick'];
}

/** `/routine` and `/hook`, and a person's own routines and hooks for a home view. */
export interface CoreRoutines {
  routineCommand: RoutineService['routineCommand'];
  hookCommand: RoutineService['hookCommand'];
  ownedBy(userId: string, inScope: (worldId: string) => boolean): Promise<{ routines: Array<{ line: string; worldId: string }>; hooks: string[] }>;
}

export interface Core {
  readonly settings: PlatformSettings;
  readonly logger: Logger;
  /** Other instances share the store: open questions stay open for whichever re-runs their turns. */
  readonly sharedStore: boolean;
  readonly turns: CoreTurns;
  readonly skills: CoreSkills;
  readonly approvals: CoreApprovals;
  readonly grants: Pick<Grants, 'list' | 'revoke' | 'ttlMs'>;
  readonly access: Pick<Access, 'check' | 'admit' | 'admitTurn' | 'usage' | 'register' | 'forgetUser' | 'forgetGroups'>;
  readonly install: CoreInstall;
  readonly routines: CoreRoutines;
  /** Absent when no MCP server is configured. */
  readonly mcp?: CoreMcp;
  /** The platform's own memory (threads it opened, messages it posted, claims on interactions). */
  readonly state: AdapterState;
  /** Clicks and commands acted on once, across instances; a dropped duplicate is counted for `platform`. */
  deliveries(platform: string): DeliveryDedupe;
}

/** The parts of an App a Core delegates to. */
export interface CoreParts {
  config: Config;
  logger: Logger;
  store: Store;
  registry: SkillRegistry;
  approvals: ApprovalRuntime;
  grants: Grants;
  engine: { invocableSkills(worldId: string): Skill[]; newConversation(chatId: string): Promise<void>; usage(chatId: string): Promise<UsageTotals> };
  dispatcher: Dispatcher<TurnOutcome>;
  stops: TurnStops;
  metrics: Metrics;
  mcp?: Mcp;
  installer: Installer;
  routines: RoutineService;
  access: Access;
}

export function createCore(parts: CoreParts): Core {
  const { config, store, engine, dispatcher, registry, approvals, routines, access } = parts;
  const mcp = parts.mcp;
  return {
    settings: config,
    logger: parts.logger,
    sharedStore: store.kind === 'redis',
    turns: {
      accept: (message, keys) => dispatcher.accept(message, keys),
      submit: (message) => dispatcher.submit(message),
      addPort: (platform, port) => dispatcher.addPort(platform, port),
      stop: (request) => parts.stops.request(request),
      newConversation: (chatId) => engine.newConversation(chatId),
      usageText: async (chatId, worldId, userId) => `${formatUsage(await engine.usage(chatId))}\n${await access.usage(worldId, userId)}`,
    },
    skills: {
      forWorld: (worldId) => engine.invocableSkills(worldId),
      closest: (id, n) => registry.current().closest(id, n),
      invocable: (id) => registry.current().get(id)?.userInvocable === true,
      served: (id) => config.mcp.servers.some((server) => id.startsWith(`${server.name}:`) && id.length > server.name.length + 1),
    },
    approvals: {
      addPresenter: (platform, presenter) => approvals.addPresenter(platform, presenter),
      respond: (input) => approvals.respond(input),
      on: approvals.on.bind(approvals),
      off: approvals.off.bind(approvals),
      record: (approvalId) => store.get<ApprovalRecord>('approvals', approvalId),
    },
    grants: parts.grants,
    access,
    install: {
      run: (place, command) => runInstallCommand(parts.installer, place, command, config.install.maxMB * 1024 * 1024),
      pick: (input) => parts.installer.pick(input),
    },
    routines: {
      routineCommand: (place, text) => routines.routineCommand(place, text),
      hookCommand: (place, text) => routines.hookCommand(place, text),
      async ownedBy(userId, inScope) {
        const [views, hooks] = await Promise.all([routines.rules.list(undefined), routines.hooks.list(undefined)]);
        return {
          routines: views.filter((view) => inScope(view.routine.worldId) && view.routine.owner === userId).map((view) => ({ line: routineLine(view), worldId: view.routine.worldId })),
          hooks: hooks.filter((hook) => inScope(hook.worldId) && hook.owner === userId).map((hook) => hookLine(hook, routines.hooks.urlOf(hook.id))),
        };
      },
    },
    ...(mcp === undefined
      ? {}
      : {
          mcp: {
            accounts: (personId) => mcp.accounts(personId),
            disconnect: (name, personId) => mcp.disconnect(name, personId),
            pendingLink: (server, personId) => mcp.signIns.pendingLink(server, personId),
            connected: (server, personId) => mcp.signIns.connected(server, personId),
            cancelTask: (taskId, userId) => mcp.tasks.cancelBy(taskId, userId),
            runningTasks: async () => (await mcp.tasks.book.list()).map(({ id, server, tool, worldId, chatId, requesterId, status, startedAt, statusMessage }) => ({ id, server, tool, worldId, chatId, requesterId, status, startedAt, ...(statusMessage === undefined ? {} : { statusMessage }) })),
            questions: mcp.questions,
            command: (place, text) => runMcpCommand(config, mcp, place, text),
          },
        }),
    state: adapterState(store),
    deliveries: (platform) => new DeliveryDedupe(store, { onDuplicate: () => parts.metrics.dedupeHits.inc({ platform }) }),
  };
}
