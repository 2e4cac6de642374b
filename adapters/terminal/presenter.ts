// How an approval looks in the terminal: the question with numbered choices, every invisible character named.
import type { ApprovalOption, ApprovalPresenter, ApprovalRecord } from '../../src/approvals/index.ts';

const CHOICES: Record<string, ApprovalOption> = { '1': 'yes_once', '2': 'yes_in_session', '3': 'no' };

/** Reads `1`, `2`, `3` or an option name; undefined when the answer is neither. */
export function parseChoice(answer: string, options: readonly ApprovalOption[]): ApprovalOption | undefined {
  const text = answer.trim().toLowerCase();
  if (text === '') return undefined;
  const option = CHOICES[text] ?? (options as readonly string[]).find((name) => name === text);
  return option && options.includes(option as ApprovalOption) ? (option as ApprovalOption) : undefined;
}

export function formatQuestion(record: ApprovalRecord): string {
  const choices = record.options.map((option, index) => `${index + 1}) ${option}`).join('   ');
  return `\n⚠ Approval needed: ${record.title}\n${record.body}\n${choices}   [default: ${record.defaultOption}]\n`;
}

export function formatOutcome(record: ApprovalRecord): string {
  const by = record.decidedBy ? ` by ${record.decidedBy}` : '';
  return `Approval ${record.outcome ?? 'resolved'}${by}.`;
}

/**
 * The terminal asks with a numbered choice. The question is printed; the next line the user types answers it
 * (the chat loop routes it here while a question is open).
 */
export class TerminalPresenter implements ApprovalPresenter {
  private readonly open: ApprovalRecord[] = [];

  constructor(private readonly write: (text: string) => void) {}

  /** The question the next typed line answers, if any. */
  get pending(): ApprovalRecord | undefined {
    return this.open[0];
  }

  async present(record: ApprovalRecord): Promise<string | undefined> {
    this.open.push(record);
    this.write(formatQuestion(record));
    return undefined;
  }

  async resolved(record: ApprovalRecord): Promise<void> {
    const index = this.open.findIndex((entry) => entry.id === record.id);
    if (index >= 0) this.open.splice(index, 1);
    this.write(`${formatOutcome(record)}\n`);
  }

  async tellPrivately(_record: ApprovalRecord, _userId: string, text: string): Promise<void> {
    this.write(`${text}\n`);
  }
}
