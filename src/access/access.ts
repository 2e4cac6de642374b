// The one place that decides whether a message, a click or a command may reach the bot: the world's `access`
// rules, the person's `limits`, and the `bots` let in on purpose. Adapters ask it before anything is stored.
import { type Config, worldSettings } from '../config/config.ts';
import type { ContextMessage, TurnPlatform } from '../platform/port.ts';
import { logRefusedAccess } from './refusalLog.ts';
import type { Logger } from '../ops/log.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Store } from '../store/types.ts';
import { BotGuard } from './botGuard.ts';
import { type Membership, MembershipCache, type MembershipSource } from './membership.ts';
import { limitNote, PersonLimits } from './personLimits.ts';
import { type AccessDecision, decide, needsFacts, refusalNote } from './rules.ts';
import { usageText } from './usageText.ts';

/** What happens to a message: `refused`/`limited` get a private note; `announce` one message in the channel. */
export type Admission =
  | { kind: 'allowed' }
  | { kind: 'refused'; note: string }
  | { kind: 'limited'; note: string }
  | { kind: 'ignored' }
  | { kind: 'announce'; note: string };

export interface Arrival {
  worldId: string;
  userId: string;
  /** A direct message (Slack DM, Discord DM): `dms` applies. */
  direct: boolean;
  /** The message's delivery key: a redelivery is counted once. */
  key: string;
  /** Set when a bot wrote it: every id the platform gives the author (Slack bot id and bot user id). */
  botIds?: string[];
  /** False for a reply in the bot's thread that neither mentions it nor is a DM: a refusal there is said once an hour. */
  addressed?: boolean;
}

export type CheckResult = { allowed: true } | { allowed: false; note: string };

export interface AccessDeps {
  config: Config;
  store: Store;
  logger: Logger;
  metrics: Metrics;
  now?: () => number;
}

/** The store channel change events travel on between instances: `groups`, or `user:<id>`. */
const CHANGED = 'access-changed';
const GROUPS = 'groups';
const USER = 'user:';

const NOTE_EVERY_MS = 60 * 60_000;

const platformOf = (worldId: string) => worldId.slice(0, worldId.indexOf(':'));

export class Access {
  readonly #sources = new Map<string, MembershipSource>();
  readonly #cache: MembershipCache;
  readonly limits: PersonLimits;
  readonly #bots: BotGuard;
  readonly #now: () => number;
  #unsubscribe: (() => Promise<void>) | undefined;

  constructor(private readonly deps: AccessDeps) {
    this.#now = deps.now ?? Date.now;
    this.#cache = new MembershipCache(this.#now);
    this.limits = new PersonLimits(deps.store, this.#now);
    this.#bots = new BotGuard(deps.store, this.#now);
  }

  /** A platform's adapter says how to learn who a person is there (without one, rules needing facts refuse). */
  register(platform: 'slack' | 'discord', source: MembershipSource): void {
    this.#sources.set(platform, source);
  }

  /** Hears the other instances' change events (the platform delivers each event to one instance only). */
  async start(): Promise<void> {
    this.#unsubscribe = await this.deps.store.subscribe(CHANGED, (message) => {
      if (message === GROUPS) this.#forgetGroupsHere();
      else this.#cache.forgetUser(message.slice(USER.length));
    });
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
  }

  /** A person's profile or roles changed (platform event): every instance asks again next time. */
  async forgetUser(userId: string): Promise<void> {
    this.#cache.forgetUser(userId);
    await this.#tellOthers(`${USER}${userId}`);
  }

  /** A group's members changed (platform event): on every instance. */
  async forgetGroups(): Promise<void> {
    this.#forgetGroupsHere();
    await this.#tellOthers(GROUPS);
  }

  #forgetGroupsHere(): void {
    this.#cache.forgetGroups();
    for (const source of this.#sources.values()) source.forgetGroups?.();
  }

  async #tellOthers(message: string): Promise<void> {
    await this.deps.store.publish(CHANGED, message).catch((error: unknown) => this.deps.logger.warn({ err: error }, 'telling other instances of a membership change failed'));
  }

  /** The rules alone (approvers, installers, commands, App Home): a refusal is logged and counted. */
  async check(worldId: string, userId: string, what: string, direct = false): Promise<CheckResult> {
    const decision = await this.#decide(worldId, userId, direct);
    if (decision.allowed) return decision;
    this.deps.metrics.accessRefusals.inc({ world: worldId, reason: decision.reason });
    logRefusedAccess(this.deps.logger, { worldId, userId, reason: decision.reason, what });
    return { allowed: false, note: refusalNote(decision.reason, this.#askWhom(worldId)) };
  }

  /** A new message: the rules, then the person's limits (counting it as a turn when it passes), or the bot guard. */
  async admit(arrival: Arrival): Promise<Admission> {
    const settings = worldSettings(this.deps.config, arrival.worldId);
    if (arrival.botIds !== undefined) {
      const verdict = await this.#bots.admit(arrival.worldId, arrival.botIds, arrival.key, settings.bots);
      if (verdict.kind !== 'ignored') this.deps.metrics.botTurns.inc({ world: arrival.worldId, outcome: verdict.kind === 'allowed' ? 'allowed' : 'cooldown' });
      return verdict;
    }
    const checked = await this.check(arrival.worldId, arrival.userId, 'message', arrival.direct);
    if (!checked.allowed) {
      // A reply in a bot's thread that does not address the bot: told once an hour, not at every message.
      if (arrival.addressed === false && !(await this.deps.store.claim('usage', `access-note:${encodeURIComponent(arrival.worldId)}/${encodeURIComponent(arrival.userId)}`, { at: this.#now() }, NOTE_EVERY_MS))) {
        return { kind: 'ignored' };
      }
      return { kind: 'refused', note: checked.note };
    }
    return this.admitTurn(arrival.worldId, arrival.userId, arrival.key);
  }

  /**
   * The person's limits alone, for a turn a command starts (the rules were checked before the command ran):
   * counted as a turn when it passes, under `key` (a redelivery counts once).
   */
  async admitTurn(worldId: string, userId: string, key: string): Promise<Extract<Admission, { kind: 'allowed' | 'limited' }>> {
    const verdict = await this.limits.admit(worldId, userId, key, worldSettings(this.deps.config, worldId).limits);
    if (!verdict.ok) {
      this.deps.metrics.limitRefusals.inc({ world: worldId, limit: verdict.limit });
      this.deps.logger.info({ decision: 'refused_limit', worldId, userId, limit: verdict.limit }, 'per-person limit reached');
      return { kind: 'limited', note: limitNote(verdict, this.#now()) };
    }
    this.deps.metrics.personTurns.inc({ world: worldId });
    return { kind: 'allowed' };
  }

  /**
   * A turn the bot starts on its owner's behalf (a routine's run, a follow-up, a webhook delivery): the owner's
   * access and limits apply as if they had asked, counted under the run's key.
   */
  async admitScheduled(worldId: string, ownerId: string, key: string): Promise<Extract<Admission, { kind: 'allowed' | 'refused' | 'limited' }>> {
    const checked = await this.check(worldId, ownerId, 'scheduled turn');
    if (!checked.allowed) return { kind: 'refused', note: checked.note };
    return this.admitTurn(worldId, ownerId, key);
  }

  /** The platform as a turn sees it, whose context reads leave out what people refused here wrote. */
  filterContext(platform: TurnPlatform, worldId: string): TurnPlatform {
    if (platform.readContext === undefined) return platform;
    // Each method bound to the port itself (a class instance: spreading it would lose its methods).
    const bound = <K extends keyof TurnPlatform>(name: K) => {
      const method = platform[name];
      return method === undefined ? {} : { [name]: (method as (...args: unknown[]) => unknown).bind(platform) };
    };
    const read = platform.readContext.bind(platform);
    return {
      ...bound('fetchFile'),
      ...bound('tellPrivately'),
      ...bound('askToConnect'),
      ...bound('directMessage'),
      readContext: async (message, request) => {
        const said = await read(message, request);
        const kept = await Promise.all(said.map(async (entry) => ((await this.#admitsAuthor(worldId, entry)) ? entry : undefined)));
        return kept.filter((entry): entry is ContextMessage => entry !== undefined);
      },
    };
  }

  /** What `/usage` tells a person: their own figures here, against this world's limits. */
  async usage(worldId: string, userId: string): Promise<string> {
    const settings = worldSettings(this.deps.config, worldId);
    return usageText(await this.limits.usage(worldId, userId), settings.limits);
  }

  async #admitsAuthor(worldId: string, entry: ContextMessage): Promise<boolean> {
    if (entry.authorKind !== 'person' || entry.userId === undefined) return true;
    return (await this.#decide(worldId, entry.userId, false)).allowed;
  }

  async #decide(worldId: string, userId: string, direct: boolean): Promise<AccessDecision> {
    const { access } = worldSettings(this.deps.config, worldId);
    let facts: Membership | undefined;
    if (needsFacts(access, userId)) {
      const source = this.#sources.get(platformOf(worldId));
      try {
        facts = source === undefined ? undefined : await this.#cache.get(source, worldId, userId, access.groups);
      } catch (error) {
        this.deps.logger.warn({ err: error, worldId, userId }, 'could not learn who a person is from the platform; refusing');
      }
    }
    return decide(access, userId, direct, facts);
  }

  #askWhom(worldId: string): string[] {
    const approvers = worldSettings(this.deps.config, worldId).approvers;
    return approvers.length > 0 ? approvers : this.deps.config.admins;
  }
}
