// Ranked search over skills for `find_skills`: BM25 over each skill's id, description, triggers and argument
// hint, with the id and triggers weighted above the description (a query naming a skill should find it first).
// The index is kept in step with the registry one skill at a time: `sync` costs what changed, not the whole set.
import type { SearchHit, Skill } from './types.ts';

interface Doc {
  skill: Skill;
  terms: Map<string, number>;
  length: number;
  /** Its place in the score array of a search (reused after a removal). */
  slot: number;
}

interface Posting {
  tf: number;
  doc: Doc;
}

const K1 = 1.2;
const B = 0.75;
const FIELD_WEIGHTS = { id: 3, triggers: 2, hint: 1, description: 1 } as const;
const DESCRIPTION_MAX = 160;
/** Words too common in skill descriptions to tell skills apart; they only cost time. */
const STOPWORDS = new Set(
  ('a an and are as at be by can do for from has have how i in into is it its me my of on or our so that the their ' +
    'then this to us use used uses using want was we when which who will with you your')
    .split(' '),
);

/** A word reduced to a rough stem, so "invoices", "invoicing" and "invoice" meet. */
function stem(word: string): string {
  if (word.length <= 3) return word;
  let base = word;
  for (const [suffix, keep] of [['ies', 'y'], ['ing', ''], ['ed', ''], ['es', ''], ['s', ''], ['ly', '']] as const) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      base = word.slice(0, -suffix.length) + keep;
      // "tagging" → "tag", "planned" → "plan" (but "install", "access" keep theirs).
      if ((suffix === 'ing' || suffix === 'ed') && /([b-df-hj-np-tv-z])\1$/.test(base) && !/(ll|ss|zz|ff)$/.test(base)) base = base.slice(0, -1);
      break;
    }
  }
  // "summarise"/"summarize", "organised"/"organizing": one spelling, no final e.
  return base.replace(/is(e?)$/, 'iz$1').replace(/e$/, '');
}

/** Lowercase word stems, stopwords left out. */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of text.toLowerCase().normalize('NFKC').split(/[^\p{L}\p{N}]+/u)) {
    if (word === '' || STOPWORDS.has(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > DESCRIPTION_MAX ? `${line.slice(0, DESCRIPTION_MAX - 1).trimEnd()}…` : line;
}

function documentOf(skill: Skill, slot: number): Doc {
  const terms = new Map<string, number>();
  let length = 0;
  const add = (text: string, weight: number) => {
    for (const term of searchTerms(text)) {
      terms.set(term, (terms.get(term) ?? 0) + weight);
      length += weight;
    }
  };
  add(skill.id, FIELD_WEIGHTS.id);
  for (const trigger of skill.triggers) add(trigger, FIELD_WEIGHTS.triggers);
  if (skill.argumentHint) add(skill.argumentHint, FIELD_WEIGHTS.hint);
  add(skill.description, FIELD_WEIGHTS.description);
  return { skill, terms, length, slot };
}

export class SkillSearchIndex {
  private readonly docs = new Map<string, Doc>();
  /** term → skill id → weighted term frequency (and the document, for its length). */
  private readonly postings = new Map<string, Map<string, Posting>>();
  /** The snapshot version the index was last brought in step with (the registry and snapshots keep it). */
  syncedVersion = -1;
  private totalLength = 0;
  private readonly freeSlots: number[] = [];
  private slotCount = 0;
  /** Scores by slot, reused by every search (no allocation per matching skill). */
  private scores = new Float64Array(0);
  private bySlot: Array<Doc | undefined> = [];

  get size(): number {
    return this.docs.size;
  }

  /** Make the index hold exactly `skills`. Only skills that are new or changed (a new object) are re-read. */
  sync(skills: readonly Skill[]): void {
    const wanted = new Set<string>();
    for (const skill of skills) {
      wanted.add(skill.id);
      if (this.docs.get(skill.id)?.skill !== skill) this.put(skill);
    }
    if (this.docs.size > wanted.size) for (const id of [...this.docs.keys()]) if (!wanted.has(id)) this.remove(id);
  }

  /** Add or replace one skill. */
  put(skill: Skill): void {
    this.remove(skill.id);
    const doc = documentOf(skill, this.freeSlots.pop() ?? this.slotCount++);
    this.docs.set(skill.id, doc);
    this.bySlot[doc.slot] = doc;
    this.totalLength += doc.length;
    for (const [term, tf] of doc.terms) {
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = new Map()));
      posting.set(skill.id, { tf, doc });
    }
  }

  remove(id: string): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    this.docs.delete(id);
    this.bySlot[doc.slot] = undefined;
    this.freeSlots.push(doc.slot);
    this.totalLength -= doc.length;
    for (const term of doc.terms.keys()) {
      const posting = this.postings.get(term);
      posting?.delete(id);
      if (posting?.size === 0) this.postings.delete(term);
    }
  }

  /**
   * The best `limit` skills for `query` among those `accept` lets through, best first. `accept` sees the indexed
   * skill object, so a caller holding an older snapshot can keep exactly its own skills.
   */
  search(query: string, options: { limit?: number; accept?: (skill: Skill) => boolean } = {}): SearchHit[] {
    const limit = options.limit ?? 10;
    const count = this.docs.size;
    if (count === 0) return [];
    const averageLength = this.totalLength / count;
    if (this.scores.length < this.slotCount) this.scores = new Float64Array(this.slotCount * 2);
    const scores = this.scores;
    const touched: number[] = [];
    const found = [...new Set(searchTerms(query))].flatMap((term) => {
      const posting = this.postings.get(term);
      return posting ? [posting] : [];
    });
    // A word in most skills tells them apart hardly at all (its weight is near 0) but costs a pass over them.
    const telling = found.filter((posting) => posting.size <= count / 2);
    for (const posting of telling.length > 0 ? telling : found) {
      const idf = Math.log(1 + (count - posting.size + 0.5) / (posting.size + 0.5));
      for (const { tf, doc } of posting.values()) {
        const score = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / averageLength));
        if (scores[doc.slot] === 0) touched.push(doc.slot);
        scores[doc.slot] = (scores[doc.slot] ?? 0) + score;
      }
    }
    // The best `limit` in one pass (no sort of every match): a query word shared by thousands stays cheap.
    const best: Array<{ skill: Skill; score: number }> = [];
    const before = (a: { skill: Skill; score: number }, b: { skill: Skill; score: number }) =>
      a.score > b.score || (a.score === b.score && a.skill.id < b.skill.id);
    for (const slot of touched) {
      const score = scores[slot] ?? 0;
      scores[slot] = 0;
      const last = best[best.length - 1];
      if (best.length >= limit && last && score < last.score) continue;
      const skill = this.bySlot[slot]?.skill;
      if (!skill || (options.accept && !options.accept(skill))) continue;
      const entry = { skill, score };
      let at = best.length;
      while (at > 0 && before(entry, best[at - 1] as { skill: Skill; score: number })) at -= 1;
      if (at >= limit) continue;
      best.splice(at, 0, entry);
      if (best.length > limit) best.pop();
    }
    return best.map(({ skill, score }) => ({
      id: skill.id,
      description: oneLine(skill.description),
      ...(skill.argumentHint ? { argumentHint: skill.argumentHint } : {}),
      score,
    }));
  }
}
