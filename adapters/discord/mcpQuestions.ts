// Servers' questions in Discord: the presenter (a card in the thread naming the requester), the buttons (open the
// form or the URL note, decline, cancel, the URL's accept) and the modals' submissions, each answered through the
// core on whichever instance Discord reaches. A form of more than 5 fields is asked in modals of 5, the earlier
// steps' values kept sealed by the core (`keepDraft`) until the last step sends the whole answer. Discord modals
// cannot show a field's error, so a wrong value is said ephemerally with a button to reopen; anyone but the
// requester is refused ephemerally.
import { type ButtonInteraction, ButtonStyle, ComponentType, MessageFlags, type ModalSubmitInteraction } from 'discord.js';
import { type AnswerResult, type Core, type McpQuestion, type QuestionField, type QuestionPresenter, questionFields } from '../../src/platform/index.ts';
import type { ChatActivity } from './chatActivity.ts';
import type { DiscordApi } from './discordApi.ts';
import { elicitCustomId, formSteps, FIELDS_PER_MODAL, outcomeText, parseElicitId, questionCard, questionModal, resolvedCard, typedOfStep, urlLink, urlNote } from './mcpQuestionCard.ts';
import { channelOfChat } from './places.ts';

export class DiscordQuestionPresenter implements QuestionPresenter {
  /** Questions a turn of this process waits on (a task's have no turn), shown here and not yet resolved, by id. */
  readonly #open = new Map<string, McpQuestion>();
  /** Card edits under way: stopping waits for them, so no card is left half-told. */
  readonly #editing = new Set<Promise<void>>();

  constructor(
    private readonly api: DiscordApi,
    private readonly activity: ChatActivity,
    private readonly questions?: Pick<NonNullable<Core['mcp']>['questions'], 'opening'>,
  ) {}

  /** The card in the thread, a URL question's too: Discord shows a message to one person only in answer to their click. */
  async present(question: McpQuestion): Promise<string | undefined> {
    const channelId = channelOfChat(question.chatId);
    const messageId = await this.api.post(channelId, questionCard(question));
    this.activity.posted(question.chatId);
    const platformRef = `${channelId}:${messageId}`;
    if (question.turnId !== undefined) this.#open.set(question.id, { ...question, platformRef });
    return platformRef;
  }

  /** The card's buttons go and the outcome shows. */
  async resolved(question: McpQuestion): Promise<void> {
    this.#open.delete(question.id);
    const [channelId, messageId] = (question.platformRef ?? '').split(':');
    if (!channelId || !messageId) return;
    const edit = this.api.edit(channelId, messageId, resolvedCard(question));
    this.#editing.add(edit);
    try {
      await edit;
    } finally {
      this.#editing.delete(edit);
    }
  }

  /**
   * The bot is stopping. A question its turn waits on is cancelled with that turn (the core's `system:stopped`) and
   * never resumed: a re-run of the turn, here after a restart or on another instance, asks anew. So a card of one
   * still pending says so now and loses its buttons, while REST still works. A task's question is left live: it is
   * kept in the store, and whichever instance polls the task next reads the answer.
   */
  async lapseOpen(): Promise<void> {
    await Promise.allSettled([...this.#editing]);
    const open = [...this.#open.values()];
    this.#open.clear();
    await Promise.allSettled(
      open.map(async (question) => {
        const now = await this.questions?.opening(question.id, question.requesterId);
        if (now !== undefined && now.kind !== 'open') return;
        await this.api.edit(...(question.platformRef!.split(':') as [string, string]), resolvedCard({ ...question, status: 'answered', action: 'cancel', decidedBy: 'system:stopped' }));
      }),
    );
  }
}

/** What the clicker alone is told when their click or form changed nothing. */
function privateText(result: AnswerResult): string {
  if (result.kind === 'not_allowed') return `${result.text}.`;
  if (result.kind === 'already_answered') return `This question is closed. ${outcomeText(result.question)}`;
  if (result.kind === 'invalid') return `${result.why.charAt(0).toUpperCase()}${result.why.slice(1)}.`;
  return 'This question no longer exists, so that changed nothing.';
}

const reopenRow = (questionId: string, label: string) => ({
  type: ComponentType.ActionRow,
  components: [{ type: ComponentType.Button, custom_id: elicitCustomId(questionId, 'open'), label, style: ButtonStyle.Primary }],
});

export interface QuestionDeps {
  core: Pick<Core, 'mcp'>;
}

/** `elicit:<id>:open|decline|cancel|accept`. Open shows the modal (or the URL note): it must be the first answer. */
export async function answerQuestionClick(interaction: ButtonInteraction, deps: QuestionDeps): Promise<void> {
  const parsed = parseElicitId(interaction.customId);
  const questions = deps.core.mcp?.questions;
  const userId = interaction.user.id;
  if (parsed === undefined || parsed.action === 'form' || questions === undefined) {
    await interaction.reply({ content: privateText({ kind: 'not_found' }), flags: MessageFlags.Ephemeral });
    return;
  }
  if (parsed.action === 'open') {
    const opened = await questions.opening(parsed.questionId, userId);
    if (opened.kind !== 'open') return void (await interaction.reply({ content: privateText(opened), flags: MessageFlags.Ephemeral }));
    const question = opened.question;
    if (question.mode === 'url' || question.schema === undefined) return void (await interaction.reply({ ...urlNote(question), flags: MessageFlags.Ephemeral }));
    const fields = questionFields(question.schema);
    const draft = await questions.draft(question.id, userId);
    const step = Math.min(draft?.step ?? 0, formSteps(fields).length - 1);
    await interaction.showModal(questionModal(question, fields, step, draft?.typed ?? {}) as never);
    return;
  }
  await interaction.deferUpdate();
  const result = await questions.answer({ questionId: parsed.questionId, userId, action: parsed.action });
  // A click in the requester's own ephemeral note (the URL's) changes that note; the public card is edited by the presenter.
  const ownNote = interaction.message.flags.has(MessageFlags.Ephemeral);
  if (result.kind !== 'answered') return void (await interaction.followUp({ content: privateText(result), flags: MessageFlags.Ephemeral }));
  if (!ownNote) return;
  const question = result.question;
  await interaction.editReply(question.mode === 'url' && question.action === 'accept' ? urlLink(question) : { content: outcomeText(question), components: [] });
}

/** The step holding the field a sentence names (by `/name` or its label), else the last. */
function stepOfError(fields: readonly QuestionField[], why: string, lastStep: number): number {
  const index = fields.findIndex((field) => why.includes(`/${field.name}`) || why.startsWith(field.label));
  return index < 0 ? lastStep : Math.floor(index / FIELDS_PER_MODAL);
}

/** A modal's submission, `elicit:<id>:form:<step>`: kept for the next step, or, at the last, the whole answer sent. */
export async function answerQuestionForm(interaction: ModalSubmitInteraction, deps: QuestionDeps): Promise<void> {
  const parsed = parseElicitId(interaction.customId);
  const questions = deps.core.mcp?.questions;
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const say = async (content: string, components: unknown[] = []) => void (await interaction.editReply({ content, components: components as never }));
  if (parsed?.action !== 'form' || questions === undefined) return say(privateText({ kind: 'not_found' }));
  const { questionId, step } = parsed;
  const userId = interaction.user.id;
  const opened = await questions.opening(questionId, userId);
  if (opened.kind !== 'open' || opened.question.schema === undefined) return say(privateText(opened.kind === 'open' ? { kind: 'not_found' } : opened));
  const fields = questionFields(opened.question.schema);
  const steps = formSteps(fields).length;
  const submitted = new Map([...interaction.fields.fields.entries()].map(([id, input]) => [id, input as { value?: string; values?: readonly string[] }]));
  const typed = typedOfStep(fields, step, submitted);
  if (step < steps - 1) {
    const kept = await questions.keepDraft({ questionId, userId, typed, step: step + 1 });
    if (kept.kind === 'invalid') {
      // Shown again when they reopen this step; kept unchecked, they go on only once they pass.
      await questions.keepDraft({ questionId, userId, typed, step, check: false });
      return say(`${privateText(kept)} Nothing was sent yet.`, [reopenRow(questionId, `Try again (${step + 1} of ${steps})`)]);
    }
    if (kept.kind !== 'kept') return say(privateText(kept));
    return say(`Kept (${step + 1} of ${steps}). Nothing is sent until the last step.`, [reopenRow(questionId, `Continue (${step + 2} of ${steps})`)]);
  }
  const draft = await questions.draft(questionId, userId);
  const result = await questions.answer({ questionId, userId, action: 'accept', typed: { ...draft?.typed, ...typed } });
  if (result.kind === 'answered') return say(`Sent to **${opened.question.server}**.`);
  if (result.kind !== 'invalid') return say(privateText(result));
  const back = stepOfError(fields, result.why, steps - 1);
  // Back to the step of the wrong field, what was typed shown again (a modal cannot keep it, as Slack's does).
  await questions.keepDraft({ questionId, userId, typed, step: back, check: false });
  return say(`${privateText(result)} Nothing was sent.`, [reopenRow(questionId, steps > 1 ? `Try again (${back + 1} of ${steps})` : 'Try again')]);
}
