// "Did you mean": the ids nearest to a mistyped one, by edit distance. With 10,000 ids an edit distance to
// each costs tens of milliseconds, so ids are indexed by their letter pairs and only those sharing enough
// pairs with the query are measured (q-gram filter: one edit changes at most two pairs).

/** Levenshtein distance, giving up (returning `limit + 1`) once it must exceed `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = new Uint16Array(b.length + 1).map((_, j) => j);
  let current = new Uint16Array(b.length + 1);
  for (let i = 1; i <= a.length; i += 1) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length] ?? 0;
}

/** Distinct letter pairs of `text` padded with start and end marks, each as one number. */
function pairs(text: string): Set<number> {
  const found = new Set<number>();
  let previous = 0x2; // start mark
  for (let i = 0; i <= text.length; i += 1) {
    const next = i < text.length ? text.charCodeAt(i) : 0x3; // end mark
    found.add(previous * 0x10000 + next);
    previous = next;
  }
  return found;
}

/** Edits within which an id counts as a typo of the query: a third of the length, at least 2. */
function typoLimit(a: string, b: string): number {
  return Math.max(2, Math.floor(Math.max(a.length, b.length) / 3));
}

export class IdIndex {
  private readonly byPair = new Map<number, number[]>();
  private readonly pairCounts: Uint16Array;
  /** Ids short enough to be within reach of a short query while sharing no pair with it. */
  private readonly shortIds: number[] = [];

  constructor(private readonly ids: readonly string[]) {
    this.pairCounts = new Uint16Array(ids.length);
    ids.forEach((id, index) => {
      const own = pairs(id);
      this.pairCounts[index] = own.size;
      for (const pair of own) {
        const list = this.byPair.get(pair);
        if (list) list.push(index);
        else this.byPair.set(pair, [index]);
      }
      if (id.length <= 3) this.shortIds.push(index);
    });
  }

  /**
   * Up to `n` ids closest to `query`, best first (ties by id): ids within a typo's reach, or holding the
   * query (or held by it) as a whole. Unrelated ids are left out.
   */
  closest(query: string, n = 3): string[] {
    const wanted = query.trim().toLowerCase();
    const own = pairs(wanted);
    const shared = new Uint16Array(this.ids.length);
    const touched: number[] = [];
    for (const pair of own) {
      for (const index of this.byPair.get(pair) ?? []) {
        if (shared[index] === 0) touched.push(index);
        shared[index] = (shared[index] ?? 0) + 1;
      }
    }
    if (wanted.length <= 3) for (const index of this.shortIds) if (shared[index] === 0) touched.push(index);

    // The best n so far, sorted by distance then id.
    const found: Array<{ id: string; distance: number }> = [];
    const worst = (): number => (found.length >= n ? (found[n - 1]?.distance ?? 0) : Number.POSITIVE_INFINITY);
    const offer = (id: string, distance: number): void => {
      let at = found.length;
      while (at > 0) {
        const before = found[at - 1];
        if (!before || before.distance < distance || (before.distance === distance && before.id < id)) break;
        at -= 1;
      }
      if (at >= n) return;
      found.splice(at, 0, { id, distance });
      if (found.length > n) found.pop();
    };
    // Candidates bucketed by a lower bound of their distance: one edit changes at most two pairs, and the
    // length by one.
    const buckets: number[][] = [];
    for (const index of touched) {
      const id = this.ids[index] ?? '';
      if (wanted.length >= 3 && (id.includes(wanted) || wanted.includes(id))) {
        // One holds the other: the distance is the difference in length.
        offer(id, Math.abs(id.length - wanted.length));
        continue;
      }
      const missing = Math.max(own.size, this.pairCounts[index] ?? 0) - (shared[index] ?? 0);
      const bound = Math.max(Math.ceil(missing / 2), Math.abs(id.length - wanted.length));
      if (bound <= typoLimit(wanted, id)) (buckets[bound] ??= []).push(index);
    }
    for (const [bound, bucket] of buckets.entries()) {
      // Once n ids are found, candidates that cannot beat or tie the n-th are not measured.
      if (!bucket || bound > worst()) continue;
      for (const index of bucket) {
        const id = this.ids[index] ?? '';
        const limit = Math.min(typoLimit(wanted, id), worst());
        if (bound > limit) continue;
        const distance = editDistance(wanted, id, limit);
        if (distance <= limit) offer(id, distance);
      }
    }
    return found.slice(0, n).map((entry) => entry.id);
  }
}

/** One-off form of `IdIndex.closest` for a short list of ids. */
export function closestIds(query: string, ids: readonly string[], n = 3): string[] {
  return new IdIndex(ids).closest(query, n);
}
