// "Did you mean": the ids nearest to a mistyped one, by edit distance.

/** Levenshtein distance, giving up (returning `limit + 1`) once it must exceed `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Up to `n` of `ids` closest to `query`, best first (ties by id): ids within a typo's reach (a third of the
 * length, at least 2 edits) or holding the query (or held by it) as a whole. Unrelated ids are left out.
 */
export function closestIds(query: string, ids: Iterable<string>, n = 3): string[] {
  const wanted = query.trim().toLowerCase();
  const scored: Array<{ id: string; distance: number }> = [];
  for (const id of ids) {
    const limit = Math.max(2, Math.floor(Math.max(wanted.length, id.length) / 3));
    const contains = wanted.length >= 3 && (id.includes(wanted) || wanted.includes(id));
    const distance = editDistance(wanted, id, contains ? Number.POSITIVE_INFINITY : limit);
    if (contains || distance <= limit) scored.push({ id, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, n).map((entry) => entry.id);
}
