// Download-and-run, in the shapes a rule on one raw line misses: shell lines normalised first (continuations
// joined, quotes and backslashes inside words dropped, `/usr/bin/curl` read as `curl`, `sudo -E`, `env`,
// `command`, `busybox` before an interpreter dropped), a download saved to a file and run on a later line, and
// Python or Node code that fetches and then evaluates. Each finding names the line that runs the download.
import type { Finding } from './findings.ts';

/** Interpreters a download may be handed to. */
const SHELLS = String.raw`(?:ba|z|k|da|fi|a)?sh|python[0-9.]*|node|nodejs|deno|bun|perl|ruby|php|pwsh`;
const DOWNLOADER = String.raw`(?:curl|wget|fetch|aria2c|http|httpie)`;
/** Words that only wrap the command after them. */
const WRAPPERS = /(^|[|;&(]\s*|\$\(\s*)(?:(?:sudo|doas)(?:\s+-[A-Za-z]+(?:\s+(?!-)[^\s|;&]+)?)*|env(?:\s+-[A-Za-z]+|\s+[A-Za-z_]\w*=\S*)*|command|exec|busybox|nohup|time|nice|stdbuf(?:\s+-\S+)*)\s+/g;

export interface ShellLine {
  /** 1-based line of the first physical line. */
  line: number;
  raw: string;
  /** What the matching reads. */
  text: string;
}

/** Lines as a shell reads them (continuations joined), each normalised for matching. */
export function shellLines(text: string): ShellLine[] {
  const out: ShellLine[] = [];
  const physical = text.split('\n');
  for (let index = 0; index < physical.length; index += 1) {
    const start = index;
    let raw = physical[index] ?? '';
    while (/\\\s*$/.test(raw) && index + 1 < physical.length) raw = `${raw.replace(/\\\s*$/, ' ')}${physical[++index] ?? ''}`;
    out.push({ line: start + 1, raw, text: normalise(raw) });
  }
  return out;
}

export function normalise(line: string): string {
  let text = line
    // Quotes and escapes inside a word (`'cu'rl`, `c\url`, `"sh"`) do not change what runs.
    .replace(/\\(?=[A-Za-z/])/g, '')
    .replace(/["'`]/g, '')
    // `/usr/bin/curl`, `/bin/sh`: the program's name.
    .replace(/(^|[\s|;&(=])(?:\/[\w.+-]+)+\/([\w.+-]+)/g, '$1$2')
    .replace(/\s+/g, ' ');
  for (let i = 0; i < 3; i += 1) text = text.replace(WRAPPERS, '$1');
  return text;
}

const LINE_RULES: ReadonlyArray<{ pattern: RegExp; message: string }> = [
  { pattern: new RegExp(String.raw`\b${DOWNLOADER}\b.*\|\s*(?:${SHELLS})\b`, 'i'), message: 'pipes a download into an interpreter' },
  { pattern: new RegExp(String.raw`\b(?:eval|source|\.|${SHELLS})\s+(?:-[a-z]+\s+)*\$\(\s*${DOWNLOADER}\b`, 'i'), message: 'evaluates a download' },
  { pattern: new RegExp(String.raw`\b(?:${SHELLS}|source|\.)\s+<\(\s*${DOWNLOADER}\b`, 'i'), message: 'runs a download through process substitution' },
  // Python: exec/eval of what urllib, requests or httpx fetched, on one line.
  { pattern: /\b(?:exec|eval|compile)\s*\(.*\b(?:urlopen|urllib\.request|requests\.(?:get|post|request)|httpx\.(?:get|post|request)|urlretrieve)\b/, message: 'evaluates what it downloads (Python)' },
  // Node: eval / new Function / vm of what fetch, http(s).get or axios fetched, on one line.
  { pattern: /\b(?:eval|Function|vm\.run\w*|runInThisContext)\s*\(.*\b(?:fetch|https?\.get|axios(?:\.get)?|got)\s*\(/, message: 'evaluates what it downloads (Node)' },
  { pattern: /\bimport\s*\(\s*[`'"]?(?:https?:|data:)/, message: 'imports code from a URL (Node)' },
];

/** Code that fetches over the network, and code that evaluates a string, in Python or Node. */
const FETCHES = /\b(?:urlopen|urllib\.request|requests\.(?:get|post|request)|httpx\.(?:get|post|request|Client)|urlretrieve|fetch\s*\(|https?\.(?:get|request)\s*\(|axios|got\s*\()/;
const EVALUATES = /(?:^|[^.\w])(?:exec|eval)\s*\(|\bnew\s+Function\s*\(|\bvm\.run\w*\s*\(|\brunInThisContext\s*\(|\bcompile\s*\([^)]*["']exec["']/;

export function downloadFindings(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  const lines = shellLines(text);
  const add = (line: number, message: string, raw: string) => findings.push({ code: 'DOWNLOAD_EXEC', severity: 'danger', file, line, message: `${message}: ${quote(raw)}` });
  const saved = new Map<string, number>();
  for (const { line, raw, text: normal } of lines) {
    const rule = LINE_RULES.find((candidate) => candidate.pattern.test(normal));
    if (rule !== undefined) {
      add(line, rule.message, raw);
      continue;
    }
    // Saved to a file (`-o F`, `-O F`, `--output F`, `> F`) …
    for (const match of normal.matchAll(new RegExp(String.raw`\b${DOWNLOADER}\b[^|;&]*?(?:\s-[a-zA-Z]*[oO]\s*|\s--output(?:-document)?[=\s]\s*|>\s*)([^\s|;&)-][^\s|;&)]*)`, 'g'))) {
      const name = baseName(match[1] ?? '');
      if (name !== '' && name !== '-' && !saved.has(name)) saved.set(name, line);
    }
    // … then run, on this line or a later one.
    for (const [name, from] of saved) {
      const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const runs = new RegExp(String.raw`(?:\b(?:${SHELLS}|source)\s+(?:-\S+\s+)*|chmod\s+\S*x\S*\s+|(?:^\s*|[;&|(]\s*)(?:\.\s+|\.\/)?)${escaped}(?![\w.-])`, 'i');
      const after = from === line ? normal.slice(normal.search(/[;&]/) + 1) : normal;
      if ((from !== line || /[;&]/.test(normal)) && runs.test(after) && !new RegExp(String.raw`\b${DOWNLOADER}\b`).test(after)) {
        add(line, `runs ${name}, which line ${from} downloaded`, raw);
        saved.delete(name);
        break;
      }
    }
  }
  // Python or Node that fetches in one place and evaluates in another: the evaluating line is shown.
  if (FETCHES.test(text)) {
    const seen = new Set(findings.map((finding) => finding.line));
    text.split('\n').forEach((raw, index) => {
      if (EVALUATES.test(raw) && !seen.has(index + 1)) add(index + 1, 'evaluates code in a file that downloads', raw);
    });
  }
  return findings;
}

function baseName(path: string): string {
  return path.split('/').pop() ?? '';
}

function quote(text: string, max = 80): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return `"${one.length > max ? `${one.slice(0, max - 1)}…` : one}"`;
}
