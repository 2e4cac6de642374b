// Collecting the problems of one skill: each names its file and field and carries a stable code.
import type { Profile, SkillProblem } from './types.ts';

export class ProblemList {
  readonly errors: SkillProblem[] = [];
  readonly warnings: SkillProblem[] = [];

  constructor(
    readonly file: string,
    readonly profile: Profile,
  ) {}

  error(code: string, field: string, text: string): void {
    this.errors.push({ code, message: `${this.file}: ${field}: ${text}` });
  }

  warn(code: string, field: string, text: string): void {
    this.warnings.push({ code, message: `${this.file}: ${field}: ${text}` });
  }

  /** A departure from the Agent Skills specification the bot can live with: error in `spec`, warning in `runtime`. */
  deviation(code: string, field: string, text: string): void {
    if (this.profile === 'spec') this.error(code, field, text);
    else this.warn(code, field, text);
  }
}

/** A short, single-line rendering of a YAML value for messages. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
