// How often one person may make the bot fetch (a repository, or a shared file to unpack): a few per hour, counted
// in the store so every instance shares the count and a restart does not reset it. Each fetch takes one of the
// person's slots for an hour (a store claim with that lifetime), which makes the window a sliding one.
import type { Store } from '../store/types.ts';

const HOUR_MS = 60 * 60 * 1000;

export interface FetchQuota {
  /** Takes one of `person`'s fetches, or says when they may ask again. */
  take(person: string): Promise<{ ok: true } | { ok: false; text: string }>;
}

export function fetchQuota(store: Store, perHour: number, now: () => number = Date.now): FetchQuota {
  const key = (person: string, slot: number) => `fetch-quota/${encodeURIComponent(person)}/${slot}`;
  return {
    async take(person) {
      const at = now();
      for (let slot = 0; slot < perHour; slot += 1) if (await store.claim('installs', key(person, slot), at, HOUR_MS)) return { ok: true };
      const taken = await Promise.all(Array.from({ length: perHour }, (_, slot) => store.get<unknown>('installs', key(person, slot))));
      const oldest = Math.min(...taken.map((value) => (typeof value === 'number' ? value : at)));
      const minutes = Math.max(1, Math.ceil((oldest + HOUR_MS - at) / 60_000));
      return { ok: false, text: `You have asked for ${perHour} fetches in the last hour (at most ${perHour} fetches per hour per person); you can ask again in ${minutes} min.` };
    },
  };
}
