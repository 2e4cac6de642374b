// The scanner's rules for text (SKILL.md, docs, scripts): static, explainable patterns, each tied to a line.
// They catch the known shapes of trouble in skills (ClawHub's `curl | bash` "prerequisites", base64 payloads
// fed to an interpreter, instructions hidden from people but read by the model); downloadRules.ts reads
// download-and-run in its variants; docs/security.md says what they cannot catch.
import { codePointName } from '../text/visible.ts';
import { downloadFindings, normalise } from './downloadRules.ts';
import type { Finding } from './findings.ts';

interface LineRule {
  code: string;
  pattern: RegExp;
  message: string;
}

const SHELLS = String.raw`(?:sudo\s+)?(?:env\s+)?(?:ba|z|k|da|fi)?sh|python[0-9.]*|node|perl|ruby|php`;

const LINE_RULES: readonly LineRule[] = [
  { code: 'DOWNLOAD_EXEC', pattern: /\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+Net\.WebClient)\b[^\n]*\|\s*(?:iex|Invoke-Expression)\b/i, message: 'pipes a download into Invoke-Expression' },
  { code: 'DOWNLOAD_EXEC', pattern: /\b(?:iex|Invoke-Expression)\s*\(?\s*\(?\s*(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object)/i, message: 'runs a download with Invoke-Expression' },
  { code: 'URL_INSTALL', pattern: /\bpip[0-9.]*\s+install\b[^\n]*(?:https?:\/\/|git\+|--index-url|--extra-index-url|-i\s+https?:)/i, message: 'installs a Python package from a URL or another index' },
  { code: 'URL_INSTALL', pattern: /\b(?:npm|pnpm|yarn)\s+(?:install|i|add)\b[^\n]*(?:https?:\/\/|git\+|github:|--registry)/i, message: 'installs a Node package from a URL or another registry' },
  { code: 'URL_INSTALL', pattern: /\bnpx\s+(?:-y\s+)?(?:https?:\/\/|github:|git\+)/i, message: 'runs a Node package straight from a URL' },
  { code: 'ENCODED_EXEC', pattern: new RegExp(String.raw`\bbase64\s+(?:-d|--decode|-D)\b[^\n]*\|\s*(?:${SHELLS})\b`, 'i'), message: 'decodes base64 into an interpreter' },
  { code: 'ENCODED_EXEC', pattern: /\b(?:exec|eval)\s*\(\s*(?:compile\s*\(\s*)?(?:base64\.b\d*decode|codecs\.decode|zlib\.decompress|bytes\.fromhex|marshal\.loads|__import__\(\s*["']base64)/i, message: 'runs decoded data as code' },
  { code: 'ENCODED_EXEC', pattern: /\b(?:eval|Function|execSync|exec)\s*\(\s*(?:atob\s*\(|Buffer\.from\s*\([^)]*["'](?:base64|hex)["'])/i, message: 'runs decoded data as code' },
  { code: 'ENCODED_EXEC', pattern: /\b(?:os\.system|subprocess\.\w+)\s*\(\s*(?:base64\.b\d*decode|codecs\.decode|bytes\.fromhex)/i, message: 'runs a decoded command' },
];

/** A run of base64 long enough to hide a program. */
const LONG_ENCODED = /[A-Za-z0-9+/]{160,}={0,2}/;
/** Something in the same file that evaluates code or pipes into a shell. */
const EVALUATES = /\b(?:exec|eval|Function|compile|system|popen|spawn|execSync)\s*\(|\|\s*(?:ba)?sh\b|\bbase64\s+-d/;

/** Characters that hide or reorder text: zero-width, bidi controls, Unicode tags, invisible operators, BOM. */
function hidingChar(code: number, index: number): string | undefined {
  if (code >= 0x200b && code <= 0x200f) return 'a zero-width or direction mark';
  if (code >= 0x202a && code <= 0x202e) return 'a bidi control';
  if (code >= 0x2066 && code <= 0x2069) return 'a bidi isolate';
  if (code >= 0x2060 && code <= 0x2064) return 'an invisible operator';
  if (code >= 0xe0000 && code <= 0xe007f) return 'a Unicode tag character (hidden text)';
  if (code === 0xfeff && index > 0) return 'a zero-width no-break space';
  if (code === 0x00ad) return 'a soft hyphen';
  if (code === 0x061c) return 'an Arabic letter mark';
  return undefined;
}

const HTML_COMMENT = /<!--([\s\S]*?)-->/g;
const HIDDEN_HTML = /<[a-z][^>]*(?:\shidden\b|style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])))[^>]*>/i;
/** A fenced code block: what is inside renders as code, visibly, comments and all. */
const FENCE = /^\s{0,3}(```|~~~)/;

/** The text with fenced code blocks blanked (line count kept), for the checks of what renders as nothing. */
function outsideCode(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      const open = FENCE.exec(line)?.[1];
      if (fence === undefined && open !== undefined) {
        fence = open;
        return '';
      }
      if (fence !== undefined) {
        if (line.trim().startsWith(fence)) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}
const MD_COMMENT = /^\s*\[(?:\/\/|comment)\]:\s*#\s*[("'](.+)[)"']\s*$/i;

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

function quote(text: string, max = 80): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return `"${one.length > max ? `${one.slice(0, max - 1)}…` : one}"`;
}

/** Findings in one text file. `markdown`: also look for what renders as nothing. */
export function scanText(file: string, text: string, markdown: boolean): Finding[] {
  const findings: Finding[] = [];
  const lines = text.split('\n');
  const prose = markdown ? outsideCode(text).split('\n') : [];
  const evaluates = EVALUATES.test(text);
  lines.forEach((line, index) => {
    const normal = normalise(line);
    for (const rule of LINE_RULES) {
      if (rule.pattern.test(line) || rule.pattern.test(normal)) findings.push({ code: rule.code, severity: 'danger', file, line: index + 1, message: `${rule.message}: ${quote(line)}` });
    }
    if (evaluates && LONG_ENCODED.test(line)) {
      findings.push({ code: 'ENCODED_PAYLOAD', severity: 'danger', file, line: index + 1, message: 'a long encoded string in a file that evaluates code or pipes into a shell' });
    }
    const rendered = prose[index];
    if (rendered) {
      const comment = MD_COMMENT.exec(rendered);
      if (comment?.[1] !== undefined) findings.push({ code: 'HIDDEN_TEXT', severity: 'danger', file, line: index + 1, message: `a Markdown comment (not shown to people) says ${quote(comment[1])}` });
      if (HIDDEN_HTML.test(rendered)) findings.push({ code: 'HIDDEN_TEXT', severity: 'danger', file, line: index + 1, message: `HTML made invisible when rendered: ${quote(rendered)}` });
    }
  });
  findings.push(...downloadFindings(file, text));
  findings.push(...hiddenCharacters(file, text));
  if (markdown) {
    for (const match of outsideCode(text).matchAll(HTML_COMMENT)) {
      const inside = match[1] ?? '';
      // A comment with words in it is text people do not see and the model reads.
      if (/[A-Za-z]{2,}(?:\s+\S+){2,}/.test(inside)) {
        findings.push({ code: 'HIDDEN_TEXT', severity: 'danger', file, line: lineOf(text, match.index), message: `an HTML comment (not shown to people, read by the model) says ${quote(inside)}` });
      }
    }
  }
  return findings;
}

/** One finding per line holding characters that hide or reorder text, naming them. */
function hiddenCharacters(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  let line = 1;
  let index = 0;
  let seen: { kinds: Set<string>; names: Set<string> } | undefined;
  const flush = () => {
    if (seen) findings.push({ code: 'HIDDEN_CHARACTERS', severity: 'danger', file, line, message: `holds ${[...seen.kinds].join(', ')} (${[...seen.names].slice(0, 5).join(' ')})` });
    seen = undefined;
  };
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code === 0x0a) {
      flush();
      line += 1;
    } else if (code > 0x7f) {
      const kind = hidingChar(code, index);
      if (kind !== undefined) {
        seen ??= { kinds: new Set(), names: new Set() };
        seen.kinds.add(kind);
        seen.names.add(codePointName(char));
      }
    }
    index += 1;
  }
  flush();
  return findings;
}

/** Characters that hide or reorder text in a file or folder name. */
export function hiddenInName(path: string): string | undefined {
  let index = 0;
  for (const char of path) {
    if (hidingChar(char.codePointAt(0) ?? 0, index) !== undefined) return codePointName(char);
    index += 1;
  }
  return undefined;
}
