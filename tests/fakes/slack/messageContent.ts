// What Slack checks in a message's content: blocks as they arrive, and the limits a bot is most likely to trip.

/** What `markdown_text` may hold in one call. */
export const MARKDOWN_LIMIT = 12_000;
const BLOCKS_LIMIT = 50;
const SECTION_TEXT_LIMIT = 3000;

/** Blocks arrive JSON-encoded in form bodies (the SDK flattens objects that way). */
export function blocksOf(params: Record<string, unknown>): unknown[] | undefined | 'invalid' {
  let value = params.blocks;
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return 'invalid';
    }
  }
  return Array.isArray(value) ? value : 'invalid';
}

/** The checks Slack makes that a bot is most likely to trip: counts and text lengths. */
export function blocksProblem(blocks: unknown[]): string | undefined {
  if (blocks.length > BLOCKS_LIMIT) return 'invalid_blocks';
  for (const block of blocks) {
    const shaped = block as { type?: unknown; text?: { text?: unknown }; elements?: unknown[] };
    if (typeof shaped.type !== 'string') return 'invalid_blocks';
    if (shaped.type === 'section' && typeof shaped.text?.text === 'string' && shaped.text.text.length > SECTION_TEXT_LIMIT) return 'invalid_blocks';
    if (shaped.type === 'actions' && (!Array.isArray(shaped.elements) || shaped.elements.length > 25)) return 'invalid_blocks';
    if (selectProblem((block as { accessory?: unknown }).accessory)) return 'invalid_blocks';
  }
  return undefined;
}

/** A static select's bounds: 1 to 100 options of at most 75 characters, initial options among them. */
function selectProblem(element: unknown): boolean {
  const shaped = element as { type?: unknown; options?: Array<{ text?: { text?: unknown }; value?: unknown }>; initial_options?: Array<{ value?: unknown }> } | undefined;
  if (shaped?.type !== 'multi_static_select' && shaped?.type !== 'static_select') return false;
  const options = shaped.options;
  if (!Array.isArray(options) || options.length === 0 || options.length > 100) return true;
  if (options.some((option) => typeof option.text?.text !== 'string' || option.text.text.length > 75 || typeof option.value !== 'string')) return true;
  return (shaped.initial_options ?? []).some((initial) => !options.some((option) => option.value === initial.value));
}
