// A server's question as Discord shows it: the card in the thread (`elicit:<id>:open|decline|cancel`), the form
// as modals of at most 5 fields (a longer form in steps), the URL question's public ask and its private note, and
// the card once answered. Contract words: DESIGN, "MCP questions, progress and tasks".
import { ButtonStyle, ComponentType, escapeMarkdown } from 'discord.js';
import type { McpQuestion, QuestionField } from '../../src/platform/index.ts';
import type { MessageBody } from './discordApi.ts';

export const ELICIT_PREFIX = 'elicit:';
/** Discord's cap on a modal's top-level components: a longer form is asked in steps of this many fields. */
export const FIELDS_PER_MODAL = 5;
/** Discord's cap on a string select's options: an enum with more is typed, its values named in the placeholder. */
const SELECT_MAX = 25;

/** An ephemeral answer's body (discord.js types its components; ours are plain API JSON). */
export interface InteractionMessage {
  content: string;
  components: never[];
}

export type ElicitAction = 'open' | 'decline' | 'cancel' | 'accept';

/** `elicit:<id>:<action>` on buttons; `elicit:<id>:form:<step>` on a modal (a question id is 16 url-safe characters). */
export function elicitCustomId(questionId: string, action: ElicitAction | `form:${number}`): string {
  return `${ELICIT_PREFIX}${questionId}:${action}`;
}

export function parseElicitId(value: string): { questionId: string; action: ElicitAction } | { questionId: string; action: 'form'; step: number } | undefined {
  const match = /^elicit:([A-Za-z0-9_-]{16}):(open|decline|cancel|accept|form:(\d{1,2}))$/.exec(value);
  if (!match?.[1] || !match[2]) return undefined;
  return match[3] === undefined ? { questionId: match[1], action: match[2] as ElicitAction } : { questionId: match[1], action: 'form', step: Number(match[3]) };
}

const button = (questionId: string, action: ElicitAction, label: string, style: ButtonStyle) => ({ type: ComponentType.Button, custom_id: elicitCustomId(questionId, action), label, style });
const row = (...components: unknown[]) => ({ type: ComponentType.ActionRow, components });
const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The card in the thread: the server, whom it asks, its message, and the three buttons (only the requester's count). */
export function questionCard(question: McpQuestion): MessageBody {
  if (question.mode === 'url') {
    return {
      content: clip(`🔗 <@${question.requesterId}>, **${escapeMarkdown(question.server)}** asks you to open a page: ${escapeMarkdown(question.message)}\nClick below: the link is shown to you alone.`, 2000),
      components: [row(button(question.id, 'open', 'Show me the link', ButtonStyle.Primary), button(question.id, 'decline', 'Decline', ButtonStyle.Secondary))],
      notify: [question.requesterId],
    };
  }
  return {
    content: clip(`❓ **${escapeMarkdown(question.server)}** asks <@${question.requesterId}>: ${escapeMarkdown(question.message)}`, 2000),
    components: [row(button(question.id, 'open', 'Answer', ButtonStyle.Primary), button(question.id, 'decline', 'Decline', ButtonStyle.Secondary), button(question.id, 'cancel', 'Cancel', ButtonStyle.Danger))],
    notify: [question.requesterId],
  };
}

/** The URL question's private note: the host named; the server is told accept only when the requester clicks Open. */
export function urlNote(question: McpQuestion): InteractionMessage {
  const host = question.host ?? 'the page';
  return {
    content: clip(`**${escapeMarkdown(question.server)}** asks you to open a page on **${escapeMarkdown(host)}**: ${escapeMarkdown(question.message)}`, 2000),
    components: [row(button(question.id, 'accept', clip(`Open ${host}`, 80), ButtonStyle.Primary), button(question.id, 'decline', 'Decline', ButtonStyle.Secondary))] as never[],
  };
}

/** After the requester's Open: the link itself, a link button (the bot never opens it). */
export function urlLink(question: McpQuestion): InteractionMessage {
  const host = question.host ?? 'the page';
  return {
    content: `**${escapeMarkdown(question.server)}** was told you accepted. Open the page on **${escapeMarkdown(host)}**:`,
    components: [row({ type: ComponentType.Button, style: ButtonStyle.Link, label: clip(`Open ${host}`, 80), url: question.url ?? '' })] as never[],
  };
}

export function outcomeText(question: McpQuestion): string {
  const what = question.action === 'accept' ? 'Answered' : question.action === 'decline' ? 'Declined' : 'Cancelled';
  const who = question.decidedBy === 'system:timeout' ? '(nobody answered in time)' : question.decidedBy?.startsWith('system:') ? '(the turn ended)' : `by <@${question.decidedBy ?? ''}>`;
  return `**${escapeMarkdown(question.server)}**'s question: ${what} ${who}.`;
}

/** The card once answered: its words kept, the buttons gone, the outcome under them. */
export function resolvedCard(question: McpQuestion): MessageBody {
  const asked = question.mode === 'url' ? `🔗 **${escapeMarkdown(question.server)}** asked <@${question.requesterId}> to open a page.` : questionCard(question).content;
  return { content: clip(`${asked}\n${outcomeText(question)}`, 2000), components: [] };
}

/** The form's steps: fields in the server's order, at most 5 a modal. */
export function formSteps(fields: readonly QuestionField[]): QuestionField[][] {
  const steps: QuestionField[][] = [];
  for (let index = 0; index < fields.length; index += FIELDS_PER_MODAL) steps.push(fields.slice(index, index + FIELDS_PER_MODAL));
  return steps.length > 0 ? steps : [[]];
}

/** A field's input: a text input, or a string select for yes/no and for a list of up to 25 values. */
function inputOf(field: QuestionField, index: number, prior: string | undefined): Record<string, unknown> {
  const customId = `f${index}`;
  const shown = field.secret ? undefined : (prior ?? field.initial);
  const choices = field.kind === 'boolean' ? [{ value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }] : field.choices;
  if (choices !== undefined && choices.length <= SELECT_MAX && choices.every((choice) => choice.value.length >= 1 && choice.value.length <= 100)) {
    return {
      type: ComponentType.StringSelect,
      custom_id: customId,
      required: field.required && field.kind !== 'boolean',
      min_values: field.required && field.kind !== 'boolean' ? 1 : 0,
      max_values: 1,
      options: choices.map((choice) => ({ label: clip(choice.label || choice.value, 100), value: choice.value, ...(choice.value === shown ? { default: true } : {}) })),
    };
  }
  const allowed = choices === undefined ? undefined : `One of: ${choices.map((choice) => choice.value).join(', ')}`;
  const placeholder = allowed ?? (field.kind === 'number' ? 'A number' : field.kind === 'integer' ? 'A whole number' : field.format);
  return {
    type: ComponentType.TextInput,
    custom_id: customId,
    style: 1,
    required: field.required,
    max_length: 4000,
    ...(placeholder === undefined ? {} : { placeholder: clip(placeholder, 100) }),
    ...(shown === undefined || shown === '' ? {} : { value: shown.slice(0, 4000) }),
  };
}

/** Step `step` of the form as a modal (interaction response type 9): one Label per field, earlier values pre-filled. */
export function questionModal(question: McpQuestion, fields: readonly QuestionField[], step: number, prior: Record<string, string | undefined>): Record<string, unknown> {
  const steps = formSteps(fields);
  const first = step * FIELDS_PER_MODAL;
  const title = steps.length > 1 ? `${question.server} (${step + 1} of ${steps.length})` : question.server;
  return {
    custom_id: elicitCustomId(question.id, `form:${step}`),
    title: clip(title, 45),
    components: (steps[step] ?? []).map((field, offset) => {
      const hint = [field.description, field.secret ? 'Sent to the server only; never logged.' : undefined].filter(Boolean).join(' ');
      return { type: ComponentType.Label, label: clip(field.label, 45), ...(hint ? { description: clip(hint, 100) } : {}), component: inputOf(field, first + offset, prior[field.name]) };
    }),
  };
}

/** What the submitted modal's inputs (`f<index>`) held, by field name (a select's one value, or nothing). */
export function typedOfStep(fields: readonly QuestionField[], step: number, submitted: ReadonlyMap<string, { value?: string; values?: readonly string[] }>): Record<string, string | undefined> {
  const first = step * FIELDS_PER_MODAL;
  return Object.fromEntries(
    (formSteps(fields)[step] ?? []).map((field, offset) => {
      const input = submitted.get(`f${first + offset}`);
      return [field.name, input?.value ?? input?.values?.[0] ?? ''];
    }),
  );
}
