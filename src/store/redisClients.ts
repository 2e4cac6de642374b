// Which bot instances hold a connection to the Redis server right now, by the name each gave its connections
// (CLIENT SETNAME, set on every connect). A process that dies loses its connections at once, long before its
// liveness record lapses, so other instances can take its chats over sooner (src/chats/instanceLiveness.ts).
import type { RedisClient } from './redisConnection.ts';

const NAME_PREFIX = 'skillbot:';
/** Answers are reused this long: a sweep asks about many chats' holders at once. */
const FRESH_MS = 250;

/** The connection name for an instance: Redis names may not hold spaces or control characters. */
export function clientNameFor(instanceId: string): string {
  return `${NAME_PREFIX}${instanceId.replace(/[^\x21-\x7e]/g, '_')}`;
}

export class ConnectedInstances {
  #answer: { at: number; names: Promise<ReadonlySet<string> | undefined> } | undefined;
  /** Set once the server refused CLIENT LIST (an ACL, a managed Redis): never asked again. */
  #refused = false;

  constructor(
    private readonly client: RedisClient,
    /** This instance's own connection name: a list that lacks it (a proxy in between, a cluster) says nothing. */
    private readonly self: string,
  ) {}

  /** The connection names (clientNameFor) of the instances connected now, or undefined when the server cannot tell. */
  get(): Promise<ReadonlySet<string> | undefined> {
    if (this.#refused) return Promise.resolve(undefined);
    const now = Date.now();
    if (this.#answer !== undefined && now - this.#answer.at < FRESH_MS) return this.#answer.names;
    const names = this.#ask();
    this.#answer = { at: now, names };
    return names;
  }

  async #ask(): Promise<ReadonlySet<string> | undefined> {
    let clients: Array<{ name?: string }>;
    try {
      clients = await this.client.clientList();
    } catch (error) {
      // Refused for good (an ACL, a server without the command); anything else may pass: ask again next time.
      if (/NOPERM|unknown (sub)?command/i.test((error as Error).message)) this.#refused = true;
      return undefined;
    }
    const names = new Set(clients.map((entry) => entry.name ?? '').filter((name) => name.startsWith(NAME_PREFIX)));
    return names.has(this.self) ? names : undefined;
  }
}
