// The model's Markdown as Slack mrkdwn: bold, italics, strike, links, code, lists, headings, quotes, tables.
import { escapeSlack, safeText } from './slackText.ts';

/** Placeholders for pieces already converted (links, URLs, escaped characters): private-use characters, removed from the input. */
const MARK = '\ue000';
const KEPT = /\ue000(\d+)\ue000/g;
const BOLD = '\ue001';

/** A URL as the target of `<url|label>`: `|` and `>` would end it early. */
function linkTarget(url: string): string {
  return url.replace(/&/g, '&amp;').replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C');
}

const SAFE_SCHEME = /^(https?:\/\/|mailto:)/i;

/** Emphasis, links and escapes of one stretch of text outside code spans. */
function formatProse(text: string): string {
  const kept: string[] = [];
  const keep = (value: string): string => `${MARK}${kept.push(value) - 1}${MARK}`;
  let s = text.replace(/\\([\\`*_{}[\]()#+\-.!~|>])/g, (_all, char: string) => keep(escapeSlack(char)));
  s = s.replace(/\[([^\]\n]+)\]\(\s*<?([^\s()<>]+)>?(?:\s+"[^"\n]*")?\s*\)/g, (_all, label: string, url: string) =>
    keep(SAFE_SCHEME.test(url) ? `<${linkTarget(url)}|${safeText(label.replace(/\*\*|__|`/g, ''))}>` : `${safeText(label)} (${escapeSlack(url)})`),
  );
  s = s.replace(/<((?:https?:\/\/|mailto:)[^\s<>]+)>/gi, (_all, url: string) => keep(`<${linkTarget(url)}>`));
  // Bare URLs are kept whole, so an underscore inside one never reads as italics (Slack links them itself).
  s = s.replace(/\bhttps?:\/\/[^\s<>]*[^\s<>.,;:!?'")\]]/gi, (url) => keep(escapeSlack(url)));
  s = safeText(s);
  s = s.replace(/\*\*(?=\S)([^\n]*?\S)\*\*/g, `${BOLD}$1${BOLD}`).replace(/__(?=\S)([^\n]*?\S)__/g, `${BOLD}$1${BOLD}`);
  s = s.replace(/(?<![\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])/g, '_$1_');
  s = s.replace(/~~(?=\S)([^\n]*?\S)~~/g, '~$1~');
  return s.replaceAll(BOLD, '*').replace(KEPT, (_all, index: string) => kept[Number(index)] ?? '');
}

/** One line's inline content: code spans stay literal (escaped only), the rest is formatted. */
export function formatInline(line: string): string {
  let out = '';
  let last = 0;
  for (const match of line.matchAll(/(`+)(.+?)\1(?!`)/g)) {
    out += formatProse(line.slice(last, match.index));
    // mrkdwn has no way to show a backtick inside inline code.
    out += `\`${safeText((match[2] ?? '').replace(/`/g, 'ˋ'))}\``;
    last = match.index + match[0].length;
  }
  return out + formatProse(line.slice(last));
}

/** A line inside a code block: literal, escaped, and unable to close the block early. */
function codeLine(line: string): string {
  return safeText(line).replace(/```/g, '``\u200b`');
}

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|(\s*:?-+:?\s*\|)+\s*$/;

/** mrkdwn has no tables: the rows go into a code block with aligned columns. */
function tableBlock(rows: string[]): string[] {
  const cells = rows
    .filter((row) => !TABLE_RULE.test(row))
    .map((row) => row.trim().slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\*\*|__|`/g, '').replace(/\\\|/g, '|')));
  const widths: number[] = [];
  for (const row of cells) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  const lines = cells.map((row) => row.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join(' | ').trimEnd());
  return ['```', ...lines.map(codeLine), '```'];
}

const BULLETS = ['•', '◦', '▪'];

function formatBlockLine(line: string): string {
  const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
  if (heading) {
    const text = (heading[1] ?? '').replace(/\*\*|__/g, '');
    return text === '' ? '' : `*${formatInline(text)}*`;
  }
  if (/^ {0,3}([-*_])(?:\s*\1){2,}\s*$/.test(line)) return '──────────';
  const bullet = /^(\s*)[-*+]\s+(?:\[([ xX])\]\s+)?(.*)$/.exec(line);
  if (bullet) {
    const level = Math.floor((bullet[1] ?? '').replace(/\t/g, '    ').length / 2);
    const box = bullet[2] === undefined ? '' : bullet[2] === ' ' ? '☐ ' : '☑ ';
    return `${'    '.repeat(level)}${BULLETS[Math.min(level, BULLETS.length - 1)]} ${box}${formatInline(bullet[3] ?? '')}`;
  }
  const ordered = /^(\s*)(\d{1,9})[.)]\s+(.*)$/.exec(line);
  if (ordered) {
    const level = Math.floor((ordered[1] ?? '').replace(/\t/g, '    ').length / 2);
    return `${'    '.repeat(level)}${ordered[2]}. ${formatInline(ordered[3] ?? '')}`;
  }
  const quote = /^ {0,3}>\s?(.*)$/.exec(line);
  if (quote) return `> ${formatBlockLine(quote[1] ?? '')}`;
  return formatInline(line);
}

/**
 * Converts Markdown to mrkdwn. Everything the model or a script wrote is escaped first, so broadcast and
 * mention syntax (`<!channel>`, `<!here>`, `<@U…>`, bare `@everyone`) shows as text and notifies nobody.
 */
export function markdownToMrkdwn(markdown: string): string {
  const lines = markdown.replace(/[\ue000\ue001]/g, '').replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      const closes = marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker;
      if (closes) fence = undefined;
      out.push(closes ? '```' : codeLine(line));
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      out.push('```');
      continue;
    }
    if (TABLE_ROW.test(line)) {
      const rows: string[] = [];
      while (index < lines.length && TABLE_ROW.test(lines[index] ?? '')) rows.push(lines[index++] ?? '');
      index -= 1;
      out.push(...tableBlock(rows));
      continue;
    }
    out.push(formatBlockLine(line));
  }
  if (fence !== undefined) out.push('```');
  return out.join('\n');
}
