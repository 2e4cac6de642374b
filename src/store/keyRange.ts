/**
 * The half-open key range holding exactly the keys that start with `prefix`: [prefix, the next string after
 * every such key). SQLite serves `key >= ? AND key < ?` from the primary key's index (unlike substr or LIKE),
 * and Redis serves it on a sorted set of keys with ZRANGE BYLEX.
 */
export function prefixRange(prefix: string): { from: string; to: string } {
  if (prefix === '') throw new RangeError('a key range needs a non-empty prefix');
  const last = prefix.charCodeAt(prefix.length - 1);
  return { from: prefix, to: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}
