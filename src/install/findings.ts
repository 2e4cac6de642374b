// What the scanner reports: each finding names its file and (for text) its line, and says what it saw.

/**
 * `danger`: what the scanner exists to catch (download-and-execute, hidden text, encoded payloads, symlinks,
 * binaries, shadowing, an invalid skill); `installPolicy: block` refuses an install that has any.
 * `note`: worth reading (a `skills validate` warning), never blocking.
 */
export type Severity = 'danger' | 'note';

export interface Finding {
  code: string;
  severity: Severity;
  /** Relative to the fetched tree's top. */
  file: string;
  line?: number;
  message: string;
}

export function findingLine(finding: Finding): string {
  const where = finding.line === undefined ? finding.file : `${finding.file}:${finding.line}`;
  return `${finding.severity === 'danger' ? '⚠' : '·'} ${where}: ${finding.message} [${finding.code}]`;
}
