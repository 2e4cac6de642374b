// A platform's own memory in the shared store, behind four verbs: what it posted or opened (a thread's owner, a
// placeholder's ts), claims that make a click or command act once, and hints between instances. The rows keep
// the namespaces and keys the adapters wrote before (a running deployment's memory stays readable); an adapter
// names its keys with its platform first (`slack:…`, `discord:…`).
import type { Store } from '../store/types.ts';

export interface AdapterState {
  get<T>(key: string): Promise<T | undefined>;
  /** Kept for `ttlMs` when given (most of an adapter's memory is only useful for hours). */
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  /** True for the one caller, on any instance, that claims `key` first within `ttlMs`. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  publish(channel: string, message: string): Promise<void>;
  /** Resolves with the unsubscribe once the subscription holds. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
}

export function adapterState(store: Store): AdapterState {
  return {
    get: (key) => store.get('chats', key),
    set: (key, value, ttlMs) => store.set('chats', key, value, ttlMs),
    claim: (key, ttlMs) => store.claim('dedupe', key, Date.now(), ttlMs),
    publish: (channel, message) => store.publish(channel, message),
    subscribe: (channel, handler) => store.subscribe(channel, handler),
  };
}
