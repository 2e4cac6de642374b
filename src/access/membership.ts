// What a platform knows of a person that the access rules need, asked through a small port the adapters implement.

/** The facts about one person in one world (`groups`: only those of the ids asked about). */
export interface Membership {
  /** Slack restricted or single-channel guest (Discord: never). */
  guest: boolean;
  /** Slack Connect member whose home workspace is not this one, nor in this workspace's Enterprise Grid org. */
  external: boolean;
  /** The asked-about group ids (Slack user groups, Discord roles) the person is in. */
  groups: string[];
  /** The account is a bot or app. */
  bot: boolean;
}

/** A platform's answer to "who is this person here": Slack users.info and usergroups.users.list, Discord member roles. */
export interface MembershipSource {
  /** Throws when the platform cannot be asked (the gate then refuses: it cannot tell). */
  membership(worldId: string, userId: string, groups: readonly string[]): Promise<Membership>;
  /** Drops what the source keeps of groups' members (a group changed). */
  forgetGroups?(): void;
}

/** How long facts are kept before the platform is asked again (change events drop them sooner). */
export const MEMBERSHIP_TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 10_000;

interface Cached {
  facts: Membership;
  until: number;
}

/**
 * Facts per (world, person, groups asked), kept a bounded time and count. `forgetUser` and `forgetGroups` are
 * called on the platforms' change events (Slack user_change, subteam_members_changed; Discord guildMemberUpdate).
 */
export class MembershipCache {
  readonly #entries = new Map<string, Cached>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(source: MembershipSource, worldId: string, userId: string, groups: readonly string[]): Promise<Membership> {
    const key = `${worldId}\u0000${userId}\u0000${groups.join(',')}`;
    const hit = this.#entries.get(key);
    if (hit && hit.until > this.now()) return hit.facts;
    const facts = await source.membership(worldId, userId, groups);
    this.#entries.delete(key);
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { facts, until: this.now() + MEMBERSHIP_TTL_MS });
    return facts;
  }

  forgetUser(userId: string): void {
    for (const key of this.#entries.keys()) if (key.split('\u0000')[1] === userId) this.#entries.delete(key);
  }

  /** A group's members changed: every entry that asked about groups is stale. */
  forgetGroups(): void {
    for (const key of this.#entries.keys()) if (!key.endsWith('\u0000')) this.#entries.delete(key);
  }
}
