// Escaping for the XML-like text the model reads (catalog, load_skill envelope), so that no content can
// close or forge an element.

const TEXT_SPECIALS = /[&<>]/g;
const ATTR_SPECIALS = /[&<>"]/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function escapeText(text: string): string {
  return text.replace(TEXT_SPECIALS, (c) => ENTITIES[c] ?? c);
}

export function escapeAttr(text: string): string {
  return text.replace(ATTR_SPECIALS, (c) => ENTITIES[c] ?? c);
}
