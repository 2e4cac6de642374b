// The `Agent Skills` section of the system prompt: one line per skill, `id: description`, sorted by id.
// It must be byte-identical across turns (prompt caching) and cheap: beyond a fixed header, each skill costs
// its id, its description and three characters. Under a budget, descriptions are shortened before any skill
// is dropped; what was shortened or dropped is reported, never silently lost.
import { escapeText } from './escape.ts';
import type { CatalogResult, Skill } from './types.ts';

/** About 10,000 tokens; the same default as config.agent.catalogBudgetChars. */
export const DEFAULT_CATALOG_BUDGET_CHARS = 40_000;
/** Descriptions are never shortened below this many characters; skills are dropped instead. */
const MIN_DESCRIPTION_CHARS = 60;
const ELLIPSIS = '…';

const HEADER =
  '## Agent Skills\n' +
  'Each line below is a skill: its id, then what it is for. Before acting on a skill, call ' +
  'load_skill(skill_id) with its id and follow the instructions it returns.\n' +
  '<available_skills>\n';
const FOOTER = '</available_skills>';

function droppedLine(count: number): string {
  return `(${count} more skill${count === 1 ? '' : 's'} not listed: catalog size budget; find_skills(query) searches every skill)\n`;
}

/** One skill's line, prepared once (the registry keeps them across reloads). */
export interface CatalogEntry {
  id: string;
  /** The id as written (escaped). */
  idText: string;
  /** Description on one line, not yet escaped. */
  text: string;
  /** Escaped length of the full line, newline included. */
  fullLength: number;
  /** Nothing to escape in the description. */
  plain: boolean;
}
type Entry = CatalogEntry;

export function catalogEntry(skill: Pick<Skill, 'id' | 'description'>): CatalogEntry {
  const text = skill.description.replace(/\s+/g, ' ').trim();
  const escaped = escapeText(text);
  const idText = escapeText(skill.id);
  return { id: skill.id, idText, text, fullLength: idText.length + 3 + escaped.length, plain: escaped === text };
}

/** Cut `text` to at most `max` UTF-16 units plus an ellipsis, never inside a surrogate pair. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}${ELLIPSIS}`;
}

function lineOf(entry: Entry, max: number): string {
  return `${entry.idText}: ${escapeText(shorten(entry.text, max))}\n`;
}

function lineLength(entry: Entry, max: number): number {
  if (entry.text.length <= max) return entry.fullLength;
  // Without characters to escape the length is known without building the line.
  return entry.plain ? entry.idText.length + 3 + shorten(entry.text, max).length : lineOf(entry, max).length;
}

function totalLength(entries: readonly Entry[], max: number): number {
  let total = HEADER.length + FOOTER.length;
  for (const entry of entries) total += lineLength(entry, max);
  return total;
}

/** How many leading entries fit when descriptions are cut to `max` and the rest are dropped. */
function countFitting(entries: readonly Entry[], max: number, budget: number): number {
  let used = HEADER.length + FOOTER.length;
  let count = 0;
  for (const entry of entries) {
    const length = lineLength(entry, max);
    const droppedAfter = entries.length - count - 1;
    if (used + length + (droppedAfter > 0 ? droppedLine(droppedAfter).length : 0) > budget) break;
    used += length;
    count += 1;
  }
  return count;
}

/**
 * Render the catalog of `skills` (the caller leaves out skills hidden from the model).
 * Deterministic: the same skills give the same bytes.
 */
export function renderCatalog(skills: readonly Skill[], options: { budgetChars?: number } = {}): CatalogResult {
  const sorted = [...skills].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return renderCatalogEntries(sorted.map(catalogEntry), options.budgetChars);
}

/** Render prepared entries, already sorted by id. */
export function renderCatalogEntries(entries: readonly CatalogEntry[], budgetChars = DEFAULT_CATALOG_BUDGET_CHARS): CatalogResult {
  const budget = budgetChars;
  const longest = entries.reduce((max, e) => Math.max(max, e.text.length), 0);

  let max = longest;
  let kept = entries;
  if (totalLength(entries, longest) > budget) {
    // The largest description cap that fits, found by bisection; at the floor, drop from the end.
    let low = Math.min(MIN_DESCRIPTION_CHARS, longest);
    let high = longest;
    if (totalLength(entries, low) <= budget) {
      while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        if (totalLength(entries, mid) <= budget) low = mid;
        else high = mid - 1;
      }
    } else {
      kept = entries.slice(0, countFitting(entries, low, budget));
    }
    max = low;
  }
  const droppedCount = entries.length - kept.length;
  const lines = kept.map((entry) => lineOf(entry, max));
  const text = `${HEADER}${lines.join('')}${droppedCount > 0 ? droppedLine(droppedCount) : ''}${FOOTER}`;
  return {
    text,
    included: kept.map((e) => e.id),
    shortened: kept.filter((e) => e.text.length > max).map((e) => e.id),
    dropped: entries.slice(kept.length).map((e) => e.id),
  };
}
