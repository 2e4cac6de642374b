// Whether a SKILL.md body names a file of its folder, e.g. `scripts/report.sh` or `./references/guide.md`.
// The name must stand on its own: `scripts/report.sh` does not count inside `scripts/report.sh.bak` or
// `myscripts/report.sh`. A sentence's closing period after the name is fine.

const PATH_CHAR = /[\p{L}\p{N}_\-/]/u;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

function standsAlone(body: string, start: number, end: number): boolean {
  const before = body[start - 1];
  if (before !== undefined && (PATH_CHAR.test(before) || before === '.')) {
    // `./scripts/x` is the one prefix allowed.
    const prefixOk = before === '/' && body[start - 2] === '.' && !PATH_CHAR.test(body[start - 3] ?? ' ') && body[start - 3] !== '.';
    if (!prefixOk) return false;
  }
  const after = body[end];
  if (after === undefined) return true;
  if (PATH_CHAR.test(after)) return false;
  if (after === '.' && WORD_CHAR.test(body[end + 1] ?? ' ')) return false;
  return true;
}

export function bodyNames(body: string, path: string): boolean {
  let from = 0;
  for (;;) {
    const start = body.indexOf(path, from);
    if (start === -1) return false;
    if (standsAlone(body, start, start + path.length)) return true;
    from = start + 1;
  }
}
