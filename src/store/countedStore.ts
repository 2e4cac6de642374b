// Counts the store operations the core makes (each one round trip, or a few for the multi-step ones), by
// operation and namespace: what a turn costs the store is then a figure on /metrics and in bench:turn.
import { NAMESPACES, type Store } from './types.ts';

// Only these become a label: other first arguments (chat ids) would make one series per chat.
const LABELLED: ReadonlySet<string> = new Set(NAMESPACES);

export type StoreOperationCounter = (operation: string, namespace: string) => void;

/** The same store, every method call counted first. Fields (kind) pass through. */
export function countedStore(store: Store, count: StoreOperationCounter): Store {
  // One wrapper per method, made on first use: a turn's store calls allocate nothing for the count.
  const wrapped = new Map<string, unknown>();
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let wrapper = wrapped.get(property);
      if (wrapper === undefined) {
        const method = value as (...callArgs: unknown[]) => unknown;
        // Called on the store itself, never the proxy: its private fields are the store's.
        wrapper = (...args: unknown[]) => {
          if (property !== 'close') count(property, typeof args[0] === 'string' && LABELLED.has(args[0]) ? args[0] : '');
          return method.apply(target, args);
        };
        wrapped.set(property, wrapper);
      }
      return wrapper;
    },
  });
}
