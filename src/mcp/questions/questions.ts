// Servers' questions put to people: a pending record in the store that any instance may answer (a click or a
// modal's submission lands wherever the platform sends it), the waiting call woken through the store's pub/sub
// (and a re-read every few seconds, since pub/sub is at most once), only the requester's answer taken, values
// checked against the server's schema, cancel at the deadline or on Stop, every decision audited without secrets.
import { randomBytes } from 'node:crypto';
import type { ElicitResult } from '@modelcontextprotocol/client';
import { type AuditLog, platformOf } from '../../approvals/index.ts';
import { type Cipher, type Encrypted, MCP_ANSWERS_LABEL, stateKeyCipher } from '../../keys/sealing.ts';
import type { Logger } from '../../ops/log.ts';
import type { Store } from '../../store/types.ts';
import { stripHidden } from '../../text/hidden.ts';
import { checkValues, loggableValues, questionFields, type RequestedSchema, type Values, valuesFromText } from './questionForm.ts';
import type { AnswerResult, McpQuestion, QuestionAction, QuestionAsker, QuestionPresenter } from './questionTypes.ts';

export const QUESTION_CHANNEL = 'mcp-questions';
/** An answered record stays this long, for a late click to be told it was answered. */
const KEEP_MS = 10 * 60_000;
/** Pub/sub is at most once: a waiter re-reads its record this often as well. */
const REREAD_MS = 3000;
const QUESTION_ID = /^[A-Za-z0-9_-]{16}$/;

const key = (id: string): string => `question:${id}`;
const draftKey = (id: string): string => `question-draft:${id}`;

/** A form answered in steps: what the requester typed so far (by field name) and the step they are at. */
export interface QuestionDraft {
  typed: Record<string, string | undefined>;
  step: number;
}

/** A server's question as the SDK hands it (its shape checked by the SDK). */
export type QuestionParams = { mode?: 'form' | 'url'; message: string; requestedSchema?: unknown; url?: string; elicitationId?: string };

export interface QuestionsDeps {
  store: Store;
  audit: AuditLog;
  logger: Logger;
  /** Seals the values given in the store (they may be secret); the instance whose call waits opens them. */
  stateKey: Buffer;
  now?: () => number;
}

export class McpQuestions {
  private readonly presenters = new Map<string, QuestionPresenter>();
  private readonly waiters = new Map<string, (question: McpQuestion) => void>();
  private subscribed: Promise<unknown> | undefined;
  private readonly now: () => number;
  private readonly cipher: Cipher;

  constructor(private readonly deps: QuestionsDeps) {
    this.now = deps.now ?? Date.now;
    this.cipher = stateKeyCipher(deps.stateKey, MCP_ANSWERS_LABEL);
  }

  addPresenter(platform: string, presenter: QuestionPresenter): () => void {
    this.presenters.set(platform, presenter);
    return () => {
      if (this.presenters.get(platform) === presenter) this.presenters.delete(platform);
    };
  }

  async get(id: string): Promise<McpQuestion | undefined> {
    return QUESTION_ID.test(id) ? this.deps.store.get<McpQuestion>('mcp', key(id)) : undefined;
  }

  /** Puts the question to the asker and waits for their answer (cancel at the deadline, on Stop, or where none can be shown). */
  async ask(server: string, params: QuestionParams, asker: QuestionAsker): Promise<ElicitResult> {
    const presenter = this.presenters.get(platformOf(asker.worldId));
    if (presenter === undefined || asker.signal?.aborted === true) return { action: 'cancel' };
    const question = this.newQuestion(server, params, asker);
    await this.listen();
    await this.deps.store.set('mcp', key(question.id), question, asker.timeoutMs + KEEP_MS);
    asker.onQuestion?.(true);
    const answered = this.waitFor(question, asker).finally(() => asker.onQuestion?.(false));
    try {
      const ref = await presenter.present(question);
      if (ref !== undefined) await this.deps.store.set('mcp', key(question.id), { ...question, platformRef: ref }, asker.timeoutMs + KEEP_MS);
    } catch (error) {
      this.deps.logger.warn({ err: error, server, questionId: question.id }, 'an MCP question could not be shown: cancelled');
      await this.decide(question.id, 'cancel', 'system:unshown');
    }
    return this.resultOf(await answered);
  }

  /**
   * A question nobody waits on in this process (a long task's `input_required`): stored and shown, its answer read
   * later by `outcome` on whichever instance polls the task, so it survives a restart. Undefined where it cannot be
   * shown (no presenter for the world's platform, or showing it failed).
   */
  async post(server: string, params: QuestionParams, asker: Omit<QuestionAsker, 'signal' | 'onQuestion'>): Promise<McpQuestion | undefined> {
    const presenter = this.presenters.get(platformOf(asker.worldId));
    if (presenter === undefined) return undefined;
    const question = this.newQuestion(server, params, asker);
    await this.deps.store.set('mcp', key(question.id), question, asker.timeoutMs + KEEP_MS);
    try {
      const ref = await presenter.present(question);
      // Only if still pending: an answer given while it was being shown is never written over.
      if (ref !== undefined) await this.deps.store.compareAndSet('mcp', key(question.id), 'pending', { ...question, platformRef: ref }, asker.timeoutMs + KEEP_MS);
      return question;
    } catch (error) {
      this.deps.logger.warn({ err: error, server, questionId: question.id }, 'an MCP question could not be shown: cancelled');
      await this.decide(question.id, 'cancel', 'system:unshown');
      return undefined;
    }
  }

  /** A posted question's answer as the server is to hear it; undefined while pending (past its deadline: cancel). */
  async outcome(id: string): Promise<ElicitResult | undefined> {
    const question = await this.get(id);
    if (question === undefined) return { action: 'cancel' };
    if (question.status === 'answered') return this.resultOf(question);
    if (this.now() < question.deadline) return undefined;
    return this.resultOf((await this.decide(id, 'cancel', 'system:timeout')) ?? (await this.get(id)) ?? { ...question, action: 'cancel' });
  }

  private resultOf(final: McpQuestion): ElicitResult {
    if (final.action !== 'accept') return { action: final.action ?? 'cancel' };
    if (final.sealedContent === undefined) return { action: 'accept' };
    const content = this.cipher.decrypt<Values>(final.sealedContent);
    // Values that do not open (another state key, tampered with) are never sent: the server hears cancel.
    return content === undefined ? { action: 'cancel' } : { action: 'accept', content };
  }

  /**
   * A person's answer, from whichever instance received it. `typed` is what a form's inputs held (text, as every
   * platform hands it); a URL question's accept carries none.
   */
  async answer(input: { questionId: string; userId: string; action: QuestionAction; typed?: Record<string, string | undefined> }): Promise<AnswerResult> {
    const question = await this.get(input.questionId);
    if (question === undefined) return { kind: 'not_found' };
    if (input.userId !== question.requesterId) return { kind: 'not_allowed', text: refusal(question) };
    if (question.status !== 'pending') return { kind: 'already_answered', question };
    let content: Values | undefined;
    if (input.action === 'accept' && question.mode === 'form' && question.schema !== undefined) {
      const read = valuesFromText(questionFields(question.schema), input.typed ?? {});
      if (!read.ok) return { kind: 'invalid', why: read.why };
      const checked = checkValues(question.schema, read.values);
      if (!checked.ok) return { kind: 'invalid', why: checked.why };
      content = read.values;
    }
    const decided = await this.decide(question.id, input.action, input.userId, content);
    return decided === undefined ? { kind: 'already_answered', question: (await this.get(question.id)) ?? question } : { kind: 'answered', question: decided };
  }

  /** May this person open the form? (The modal opens only for the requester, while it is pending.) */
  async opening(questionId: string, userId: string): Promise<AnswerResult | { kind: 'open'; question: McpQuestion }> {
    const question = await this.get(questionId);
    if (question === undefined) return { kind: 'not_found' };
    if (userId !== question.requesterId) return { kind: 'not_allowed', text: refusal(question) };
    if (question.status !== 'pending') return { kind: 'already_answered', question };
    return { kind: 'open', question };
  }

  /**
   * A form asked in steps (Discord's modals hold 5 fields): the requester's values of one step, checked against the
   * part of the schema they cover, kept sealed (they may be secret) until the last step sends the whole answer
   * through `answer`. With `check: false` (a whole answer was turned back) they are kept as typed, to be shown
   * again at `step`, the step of the wrong field: nothing reaches the server but through `answer`'s checks.
   */
  async keepDraft(input: { questionId: string; userId: string; typed: Record<string, string | undefined>; step: number; check?: boolean }): Promise<AnswerResult | { kind: 'kept'; draft: QuestionDraft }> {
    const opened = await this.opening(input.questionId, input.userId);
    if (opened.kind !== 'open') return opened;
    const { question } = opened;
    if (question.schema === undefined) return { kind: 'invalid', why: 'This question has no form to fill in.' };
    const checked = input.check === false ? { ok: true as const } : checkPart(question.schema, input.typed);
    if (!checked.ok) return { kind: 'invalid', why: checked.why };
    const draft: QuestionDraft = { typed: { ...(await this.draft(question.id, input.userId))?.typed, ...input.typed }, step: input.step };
    await this.deps.store.set('mcp', draftKey(question.id), this.cipher.encrypt(draft), Math.max(question.deadline - this.now(), 1000));
    return { kind: 'kept', draft };
  }

  /** The requester's values so far of a form asked in steps (nobody else's: undefined). */
  async draft(questionId: string, userId: string): Promise<QuestionDraft | undefined> {
    const question = await this.get(questionId);
    if (question === undefined || question.requesterId !== userId) return undefined;
    const sealed = await this.deps.store.get<Encrypted>('mcp', draftKey(questionId));
    return sealed === undefined ? undefined : this.cipher.decrypt<QuestionDraft>(sealed);
  }

  private newQuestion(server: string, params: QuestionParams, asker: Omit<QuestionAsker, 'signal' | 'onQuestion'>): McpQuestion {
    const now = this.now();
    const url = params.mode === 'url' ? params.url : undefined;
    return {
      id: randomBytes(12).toString('base64url'),
      status: 'pending',
      mode: url === undefined ? 'form' : 'url',
      server,
      message: stripHidden(params.message).text.slice(0, 2000),
      ...(url === undefined ? { schema: params.requestedSchema as RequestedSchema } : { url, host: new URL(url).host }),
      worldId: asker.worldId,
      chatId: asker.chatId,
      requesterId: asker.requesterId,
      ...(asker.turnId === undefined ? {} : { turnId: asker.turnId }),
      createdAt: now,
      deadline: now + asker.timeoutMs,
    };
  }

  /** Resolves once the record is answered here or on another instance; cancels it at the deadline or on Stop. */
  private waitFor(question: McpQuestion, asker: QuestionAsker): Promise<McpQuestion> {
    return new Promise((resolve) => {
      const stop = (): void => void this.decide(question.id, 'cancel', 'system:stopped');
      const deadline = setTimeout(() => void this.decide(question.id, 'cancel', 'system:timeout'), Math.max(question.deadline - this.now(), 0));
      const reread = setInterval(() => void this.reread(question.id), REREAD_MS);
      asker.signal?.addEventListener('abort', stop, { once: true });
      this.waiters.set(question.id, (answered) => {
        this.waiters.delete(question.id);
        clearTimeout(deadline);
        clearInterval(reread);
        asker.signal?.removeEventListener('abort', stop);
        resolve(answered);
      });
    });
  }

  private async reread(id: string): Promise<void> {
    const waiter = this.waiters.get(id);
    if (waiter === undefined) return;
    try {
      const question = await this.get(id);
      // A record gone from the store (expired, or the store lost it) can only be cancelled.
      if (question === undefined) return waiter({ id, status: 'answered', action: 'cancel' } as McpQuestion);
      if (question.status === 'answered') waiter(question);
    } catch (error) {
      this.deps.logger.warn({ err: error, questionId: id }, 'reading an MCP question failed');
    }
  }

  private listen(): Promise<unknown> {
    this.subscribed ??= this.deps.store.subscribe(QUESTION_CHANNEL, (id) => void this.reread(id)).catch((error: unknown) => {
      this.subscribed = undefined;
      this.deps.logger.warn({ err: error }, 'MCP questions: subscribing failed; answers are read every few seconds');
    });
    return this.subscribed;
  }

  /** Exactly one decision wins (compare-and-set from pending), across instances; it is audited, announced and shown. */
  private async decide(id: string, action: QuestionAction, decidedBy: string, content?: Values): Promise<McpQuestion | undefined> {
    const question = await this.get(id);
    if (question === undefined || question.status !== 'pending') return undefined;
    const answered: McpQuestion = { ...question, status: 'answered', action, decidedBy, ...(content === undefined ? {} : { sealedContent: this.cipher.encrypt(content) }) };
    if (!(await this.deps.store.compareAndSet('mcp', key(id), 'pending', answered, KEEP_MS))) return undefined;
    await this.audit(answered, content);
    await this.deps.store.publish(QUESTION_CHANNEL, id).catch(() => undefined);
    this.waiters.get(id)?.(answered);
    const presenter = this.presenters.get(platformOf(question.worldId));
    await presenter?.resolved(answered).catch((error: unknown) => this.deps.logger.warn({ err: error, questionId: id }, 'marking an MCP question answered failed'));
    return answered;
  }

  private async audit(question: McpQuestion, content: Values | undefined): Promise<void> {
    const fields = question.schema === undefined ? [] : questionFields(question.schema);
    const values = content === undefined ? '' : JSON.stringify(loggableValues(fields, content));
    const outcome = question.decidedBy === 'system:timeout' ? 'timeout' : (question.action ?? 'cancel');
    this.deps.logger.info({ server: question.server, questionId: question.id, outcome, decidedBy: question.decidedBy, mode: question.mode }, 'MCP question decided');
    await this.deps.audit.record({
      at: this.now(),
      kind: 'question',
      worldId: question.worldId,
      chatId: question.chatId,
      skillId: `mcp__${question.server}`,
      skillHash: '',
      // The question and the values given (a secret field's value never): what the server was told, for operators.
      items: [{ kind: 'tool', path: question.server, args: [question.message, ...(question.host === undefined ? [] : [question.host]), ...(values === '' ? [] : [values])] }],
      requestedBy: question.requesterId,
      ...(question.decidedBy === undefined ? {} : { decidedBy: question.decidedBy }),
      outcome,
      approvalId: question.id,
      ...(question.turnId === undefined ? {} : { turnId: question.turnId }),
    });
  }
}

/** One step's typed values against the part of the schema they cover (types, required, patterns, bounds). */
function checkPart(schema: RequestedSchema, typed: Record<string, string | undefined>): { ok: true } | { ok: false; why: string } {
  const names = new Set(Object.keys(typed));
  const read = valuesFromText(questionFields(schema).filter((field) => names.has(field.name)), typed);
  if (!read.ok) return read;
  const part: RequestedSchema = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(schema.properties).filter(([name]) => names.has(name))),
    required: (schema.required ?? []).filter((name) => names.has(name)),
  };
  return checkValues(part, read.values);
}

/** What anyone but the requester is told, privately. */
export const refusal = (question: Pick<McpQuestion, 'requesterId'>): string => `Only <@${question.requesterId}> can answer this`;
