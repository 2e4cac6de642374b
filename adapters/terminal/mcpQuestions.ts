// Servers' questions in the terminal: the server and its message printed, then each field of the form asked in
// turn at the prompt (its type, allowed values and default shown), the values checked through the core as a Slack
// modal's are (a wrong one is said and that field asked again), `/decline` and `/cancel` at any field. A URL
// question prints the host and the link and asks `/open` (the person opened it: accept), `/decline` or `/cancel`.
// Slash words, not bare ones, so "cancel" stays a value a text field may hold. Pipe mode has nobody to ask: the
// question is printed and answered cancel, as an approval there is answered no.
import { type Core, type McpQuestion, type QuestionField, type QuestionPresenter, questionFields } from '../../src/platform/index.ts';

type Questions = NonNullable<Core['mcp']>['questions'];

/** A form being filled in at the prompt: which field the next line answers, and what was typed so far. */
interface Filling {
  question: McpQuestion;
  fields: QuestionField[];
  /** Indexes into `fields` still to ask, in order. */
  toAsk: number[];
  typed: Record<string, string | undefined>;
}

const KIND_WORDS: Record<QuestionField['kind'], string> = { string: 'text', number: 'a number', integer: 'a whole number', boolean: 'yes or no', enum: 'one of the list' };

/** The bounds the schema gives a field (minimum/maximum, lengths, pattern), in words. */
function boundsOf(question: McpQuestion, name: string): string[] {
  const property = question.schema?.properties[name] ?? {};
  const said: string[] = [];
  if (typeof property.minimum === 'number' && typeof property.maximum === 'number') said.push(`${property.minimum} to ${property.maximum}`);
  else if (typeof property.minimum === 'number') said.push(`at least ${property.minimum}`);
  else if (typeof property.maximum === 'number') said.push(`at most ${property.maximum}`);
  if (typeof property.minLength === 'number') said.push(`at least ${property.minLength} characters`);
  if (typeof property.maxLength === 'number') said.push(`at most ${property.maxLength} characters`);
  if (typeof property.pattern === 'string') said.push(`matching ${property.pattern.slice(0, 80)}`);
  return said;
}

/** One field's prompt line: label, what it takes, whether it may be left empty, its default. */
export function fieldPrompt(question: McpQuestion, field: QuestionField): string {
  const about = [KIND_WORDS[field.kind], ...(field.format ? [field.format] : []), ...boundsOf(question, field.name), field.required ? 'required' : 'optional'];
  if (field.secret) about.push('secret: not logged, but shown as you type');
  const choices = field.choices?.map((choice, index) => `    ${index + 1}) ${choice.label}${choice.label === choice.value ? '' : ` (${choice.value})`}`).join('\n');
  const initial = field.initial === undefined ? '' : ` [default: ${field.initial}]`;
  return `  ${field.label} (${about.join(', ')})${initial}${field.description ? `: ${field.description}` : ''}\n${choices ? `${choices}\n` : ''}`;
}

/** What one typed line means for a field: a list's number becomes its value, empty takes the default. */
function readField(field: QuestionField, line: string): string | undefined {
  const text = line.trim();
  if (text === '') return field.initial;
  if (field.kind === 'enum' && /^\d+$/.test(text)) return field.choices?.[Number(text) - 1]?.value ?? text;
  return text;
}

/** The fields a why-sentence names (Ajv's `/name`, or our own label first): those are asked again. */
function namedFields(fields: readonly QuestionField[], why: string): number[] {
  const named = fields.flatMap((field, index) => (why.includes(`/${field.name} `) || why.includes(`/${field.name},`) || why.startsWith(field.label) ? [index] : []));
  return named.length > 0 ? named : fields.map((_, index) => index);
}

export function questionHeader(question: McpQuestion): string {
  if (question.mode === 'url') {
    return `\n🔗 ${question.server} asks you to open a link on ${question.host ?? '?'}: ${question.message}\n  ${question.url ?? ''}\n  Nothing passes through the bot. Type /open once you have opened it, /decline or /cancel.\n`;
  }
  return `\n❓ ${question.server} asks: ${question.message}\n  Answer each field (an empty line takes the default or leaves an optional field out); /decline or /cancel at any time.\n`;
}

/**
 * The terminal's presenter: one question at a time is being answered (a turn's call waits on one), the next typed
 * line goes to it (the chat loop asks `pending` first).
 */
export class TerminalQuestionPresenter implements QuestionPresenter {
  private filling: Filling | undefined;

  constructor(
    private readonly questions: Questions,
    private readonly userId: string,
    private readonly write: (text: string) => void,
    /** Pipe mode: nobody to ask, every question answered cancel and said so. */
    private readonly unattended = false,
  ) {}

  get pending(): McpQuestion | undefined {
    return this.filling?.question;
  }

  async present(question: McpQuestion): Promise<string | undefined> {
    this.write(questionHeader(question));
    if (this.unattended) {
      this.write(`[question] answered cancel automatically (unattended run, nobody to ask).\n`);
      // After `ask` has its waiter: the answer is a decision like any person's, audited and announced.
      setImmediate(() => void this.questions.answer({ questionId: question.id, userId: question.requesterId, action: 'cancel' }).catch(() => undefined));
      return undefined;
    }
    const fields = question.mode === 'form' && question.schema !== undefined ? questionFields(question.schema) : [];
    this.filling = { question, fields, toAsk: fields.map((_, index) => index), typed: {} };
    this.askNext();
    return undefined;
  }

  async resolved(question: McpQuestion): Promise<void> {
    if (this.filling?.question.id === question.id) this.filling = undefined;
    const why = question.decidedBy === 'system:timeout' ? ' (nobody answered in time)' : question.decidedBy === 'system:stopped' ? ' (the turn was stopped)' : '';
    const word = question.action === 'accept' ? 'answered' : question.action === 'decline' ? 'declined' : 'cancelled';
    this.write(`  ${question.server}'s question ${word}${why}.\n`);
  }

  /** A line typed while a question is open: a field's value, `/open`, `/decline` or `/cancel`. */
  async onLine(line: string): Promise<void> {
    const filling = this.filling;
    if (filling === undefined) return;
    const word = line.trim().toLowerCase();
    if (word === '/decline' || word === '/cancel') return this.send(filling, word === '/decline' ? 'decline' : 'cancel');
    if (filling.question.mode === 'url') {
      if (word === '/open') return this.send(filling, 'accept');
      this.write('  Type /open once you have opened the link, /decline or /cancel.\n');
      return;
    }
    const index = filling.toAsk[0];
    if (index === undefined) return;
    const field = filling.fields[index]!;
    const value = readField(field, line);
    if ((value === undefined || value === '') && field.required && field.kind !== 'boolean') {
      this.write(`  ${field.label} is required: type a value, /decline or /cancel.\n`);
      return;
    }
    filling.typed[field.name] = value;
    filling.toAsk.shift();
    if (filling.toAsk.length > 0) return this.askNext();
    return this.send(filling, 'accept');
  }

  private askNext(): void {
    const filling = this.filling;
    const index = filling?.toAsk[0];
    if (filling !== undefined && index !== undefined) this.write(fieldPrompt(filling.question, filling.fields[index]!));
  }

  /** Hands the answer to the core; a value it turns back is said, and the fields it names are asked again. */
  private async send(filling: Filling, action: 'accept' | 'decline' | 'cancel'): Promise<void> {
    const result = await this.questions.answer({ questionId: filling.question.id, userId: this.userId, action, ...(action === 'accept' && filling.question.mode === 'form' ? { typed: filling.typed } : {}) });
    if (result.kind === 'invalid') {
      filling.toAsk = namedFields(filling.fields, result.why);
      this.write(`  Not sent: ${result.why}. Again:\n`);
      return this.askNext();
    }
    if (result.kind === 'not_allowed') this.write(`  ${result.text}\n`);
    // Answered, or closed meanwhile (a timeout, Stop): resolved() says which and lets go of it.
    if (result.kind === 'not_found' && this.filling === filling) this.filling = undefined;
  }
}
