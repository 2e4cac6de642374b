// How an approval looks in the terminal: the question with numbered choices, every invisible character named.
import type { ApprovalOption, ApprovalPresenter, ApprovalRecord } from '../../src/platform/index.ts';

const CHOICES: Record<string, ApprovalOption> = { '1': 'yes_once', '2': 'yes_in_session', '3': 'no' };
/** Each option keeps its number (the contract's 1, 2, 3) even where one is left out (an MCP tool asked every time). */
const numberOf = (option: ApprovalOption): string => Object.entries(CHOICES).find(([, value]) => value === option)?.[0] ?? '?';

/** Reads `1`, `2`, `3` or an option name; undefined when the answer is neither. */
export function parseChoice(answer: string, options: readonly ApprovalOption[]): ApprovalOption | undefined {
  const text = answer.trim().toLowerCase();
  if (text === '') return undefined;
  const option = CHOICES[text] ?? (options as readonly string[]).find((name) => name === text);
  return option && options.includes(option as ApprovalOption) ? (option as ApprovalOption) : undefined;
}

/** How each option reads on the terminal (its name is still accepted when typed). */
export const OPTION_LABELS: Record<ApprovalOption, string> = { yes_once: 'Yes, once', yes_in_session: 'Yes, for this session', no: 'No' };

/** The card's text says "thread" (Slack and Discord); a terminal conversation is a session. */
function terminalWords(body: string): string {
  return body.replaceAll('"Yes, for this thread"', '"Yes, for this session"').replaceAll('in this thread only', 'in this session only');
}

export function formatQuestion(record: ApprovalRecord): string {
  const choices = record.options.map((option) => `${numberOf(option)}) ${OPTION_LABELS[option]}`).join('   ');
  return `\n⚠ Approval needed: ${record.title}\n${terminalWords(record.body)}\n${choices}   [default: ${OPTION_LABELS[record.defaultOption]}]\n`;
}

/** What to type, when a line is not an answer. */
export function choiceHint(record: ApprovalRecord): string {
  return `Type ${record.options.map((option) => `${numberOf(option)} (${OPTION_LABELS[option]})`).join(', ')}.`;
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
