// Which skills a user message triggers: a pure function over the message and the skills' `triggers`.
//
// Text and phrases are compared as token sequences, never as regular expressions, so a trigger's
// metacharacters are literal and nothing can throw. Both sides are NFKC-normalised and lower-cased, and
// whitespace only separates tokens. A token is a run of letters, digits and marks, or a single other
// character (punctuation, symbol), or a single character of a script written without spaces (Han, kana,
// Thai…). A phrase matches only on whole tokens with the same spacing: `git` never matches "github", `c++`
// matches "write c++ code".
import type { Skill } from './types.ts';

/** What matching needs of a skill. */
export type TriggerSource = Pick<Skill, 'id' | 'triggers' | 'disableModelInvocation'>;

export interface TriggerMatch {
  skillId: string;
  /** Sum of the weights of the distinct phrases matched (a phrase weighs its number of words). */
  score: number;
  /** The phrases matched, as the skill declares them, in declaration order. */
  matched: string[];
}

export interface RankedTriggerMatch extends TriggerMatch {
  /** `disable-model-invocation: true`: it matched but is never activated automatically. */
  disabled: boolean;
}

interface Token {
  text: string;
  /** Whitespace separates it from the token before. */
  spaced: boolean;
  /** The trie step for a token that is not a phrase's first: whitespace before it is part of the match. */
  step: string;
}

interface CompiledPhrase {
  skill: number;
  phrase: string;
  /** Position among the skill's distinct phrases: keeps `matched` in declaration order. */
  order: number;
  weight: number;
}

/** A trie over tokens: a step is a token's text, prefixed by a space when whitespace comes before it. */
interface TrieNode {
  next: Map<string, TrieNode>;
  /** Phrases that end here. */
  ends: CompiledPhrase[];
}

/** The phrases of every skill as a token trie. Built once per skill list. */
export interface TriggerIndex {
  readonly skills: readonly TriggerSource[];
  readonly root: TrieNode;
}

// One alternative per kind of token; combining marks stay with the character they follow.
const TOKEN = /(?<space>[\s\p{Z}]+)|(?<run>[\p{L}\p{N}\p{Pc}][\p{L}\p{N}\p{Pc}\p{M}]*)|(?<other>[^\s\p{Z}]\p{M}*)/gu;
// Scripts written without spaces between words: each of their characters is a token of its own.
const UNSPACED_SCRIPTS = ['Han', 'Hiragana', 'Katakana', 'Thai', 'Lao', 'Khmer', 'Myanmar', 'Tibetan']
  .map((script) => `\\p{Script=${script}}`)
  .join('');
const UNSPACED = new RegExp(`[${UNSPACED_SCRIPTS}]`, 'u');
const UNSPACED_SPLIT = new RegExp(`[${UNSPACED_SCRIPTS}]\\p{M}*|(?:(?![${UNSPACED_SCRIPTS}])[^])+`, 'gu');

/** NFKC, lower case. */
export function normaliseTriggerText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** Tokens of already normalised text. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let spaced = false;
  for (const match of text.matchAll(TOKEN)) {
    const groups = match.groups ?? {};
    if (groups['space'] !== undefined) {
      spaced = true;
      continue;
    }
    if (groups['run'] !== undefined && UNSPACED.test(match[0])) {
      for (const [part] of match[0].matchAll(UNSPACED_SPLIT)) {
        tokens.push({ text: part, spaced, step: spaced ? ` ${part}` : part });
        spaced = false;
      }
      continue;
    }
    tokens.push({ text: match[0], spaced, step: spaced ? ` ${match[0]}` : match[0] });
    spaced = false;
  }
  return tokens;
}

function step(token: Token, first: boolean): string {
  return first ? token.text : token.step;
}

/** Precomputes the phrases of `skills`; duplicate phrases of one skill (after normalising) count once. */
export function compileTriggers(skills: readonly TriggerSource[]): TriggerIndex {
  const root: TrieNode = { next: new Map(), ends: [] };
  skills.forEach((skill, index) => {
    const seen = new Set<TrieNode>();
    for (const phrase of skill.triggers) {
      const tokens = tokenize(normaliseTriggerText(phrase));
      if (tokens.length === 0) continue;
      let node = root;
      tokens.forEach((token, at) => {
        const key = step(token, at === 0);
        let child = node.next.get(key);
        if (!child) node.next.set(key, (child = { next: new Map(), ends: [] }));
        node = child;
      });
      if (seen.has(node)) continue;
      // Words are what whitespace separates: `code review` weighs 2, `c++` and `デプロイ` weigh 1.
      const weight = 1 + tokens.filter((token) => token.spaced).length;
      node.ends.push({ skill: index, phrase, order: seen.size, weight });
      seen.add(node);
    }
  });
  return { skills, root };
}

// A memo of a pure function, for frozen lists only (a snapshot's list is): entries go with the snapshot, and a
// list that could still change is compiled afresh each time.
const compiledLists = new WeakMap<readonly TriggerSource[], TriggerIndex>();

function indexFor(skills: readonly TriggerSource[] | TriggerIndex): TriggerIndex {
  if (!Array.isArray(skills)) return skills as TriggerIndex;
  const list = skills as readonly TriggerSource[];
  if (!Object.isFrozen(list)) return compileTriggers(list);
  let index = compiledLists.get(list);
  if (!index) {
    index = compileTriggers(list);
    compiledLists.set(list, index);
  }
  return index;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Every skill whose phrases occur in `text`, best first: higher score, then more phrases matched, then id.
 * Disabled skills are included (flagged), so authors can see why one never activates.
 */
export function rankTriggerMatches(text: string, skills: readonly TriggerSource[] | TriggerIndex): RankedTriggerMatch[] {
  const index = indexFor(skills);
  const tokens = tokenize(normaliseTriggerText(text));
  const found = new Map<number, Map<number, CompiledPhrase>>();
  for (let start = 0; start < tokens.length; start += 1) {
    let node: TrieNode | undefined = index.root;
    for (let at = start; node && at < tokens.length; at += 1) {
      node = node.next.get(step(tokens[at] as Token, at === start));
      for (const phrase of node?.ends ?? []) {
        let phrases = found.get(phrase.skill);
        if (!phrases) found.set(phrase.skill, (phrases = new Map()));
        phrases.set(phrase.order, phrase);
      }
    }
  }
  const ranked: RankedTriggerMatch[] = [];
  for (const [skillIndex, phrases] of found) {
    const skill = index.skills[skillIndex] as TriggerSource;
    const ordered = [...phrases.values()].sort((a, b) => a.order - b.order);
    ranked.push({
      skillId: skill.id,
      score: ordered.reduce((sum, phrase) => sum + phrase.weight, 0),
      matched: ordered.map((phrase) => phrase.phrase),
      disabled: skill.disableModelInvocation,
    });
  }
  return ranked.sort((a, b) => b.score - a.score || b.matched.length - a.matched.length || compareIds(a.skillId, b.skillId));
}

export interface MatchOptions {
  /** At most this many skills (config.agent.maxTriggeredSkills). */
  max: number;
  /** Skills to consider (e.g. those the world allows); checked before the cut to `max`. */
  accept?: (skillId: string) => boolean;
}

/** The skills `text` activates: best first, never a disabled one, at most `max`. */
export function matchTriggers(
  text: string,
  skills: readonly TriggerSource[] | TriggerIndex,
  options: MatchOptions,
): TriggerMatch[] {
  if (options.max <= 0) return [];
  return rankTriggerMatches(text, skills)
    .filter((match) => !match.disabled && (options.accept?.(match.skillId) ?? true))
    .slice(0, options.max)
    .map(({ skillId, score, matched }) => ({ skillId, score, matched }));
}
