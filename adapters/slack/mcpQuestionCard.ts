// A server's question as Slack shows it: the card in the thread (open, decline, cancel), the modal of its form
// (one input per field), the private note of a URL question, and the card once answered. Contract words: DESIGN,
// "MCP questions, progress and tasks".
import type { McpQuestion, QuestionField } from '../../src/platform/index.ts';
import type { SlackBlock } from './slackBlock.ts';
import { safeText } from './slackText.ts';

export const ELICIT_CALLBACK_ID = 'mcp_elicit';
/** Every input's action id (the block id is the field's name). */
export const FIELD_ACTION_ID = 'value';

const plain = (text: string, max: number) => ({ type: 'plain_text' as const, text: text.slice(0, max) || ' ' });
const button = (actionId: string, text: string, value: string, style?: 'primary' | 'danger') => ({ type: 'button' as const, action_id: actionId, text: plain(text, 75), value, ...(style ? { style } : {}) });

export function questionCardText(question: McpQuestion): string {
  return safeText(`${question.server} asks: ${question.message}`);
}

/** The card in the thread: the server, its message, and the requester's three buttons. */
export function questionCardBlocks(question: McpQuestion): SlackBlock[] {
  return [
    { type: 'section', text: { type: 'mrkdwn', text: safeText(`*${question.server}* asks <@${question.requesterId}>: ${question.message}`).slice(0, 3000) } },
    {
      type: 'actions',
      block_id: 'mcp_elicit',
      elements: [button('mcp_elicit_open', 'Answer', question.id, 'primary'), button('mcp_elicit_decline', 'Decline', question.id), button('mcp_elicit_cancel', 'Cancel', question.id, 'danger')],
    },
  ];
}

/** A URL question, to the requester alone: the host named, the link itself a button (the bot never opens it). */
export function urlNoteBlocks(question: McpQuestion): SlackBlock[] {
  return [
    { type: 'section', text: { type: 'mrkdwn', text: safeText(`*${question.server}* asks you to open a page on *${question.host ?? ''}*: ${question.message}`).slice(0, 3000) } },
    {
      type: 'actions',
      block_id: 'mcp_elicit',
      elements: [{ ...button('mcp_elicit_accept', `Open ${question.host ?? 'the page'}`, question.id, 'primary'), url: question.url ?? '' }, button('mcp_elicit_decline', 'Decline', question.id)],
    },
  ];
}

export function outcomeText(question: McpQuestion): string {
  const who = question.decidedBy?.startsWith('system:') ? (question.decidedBy === 'system:timeout' ? 'nobody answered in time' : 'the turn ended') : `by <@${question.decidedBy ?? ''}>`;
  const what = question.action === 'accept' ? 'Answered' : question.action === 'decline' ? 'Declined' : 'Cancelled';
  return `${question.server}'s question: ${what} ${who.startsWith('by') ? who : `(${who})`}.`;
}

function inputElement(field: QuestionField): Record<string, unknown> {
  if (field.kind === 'boolean') {
    const option = { text: plain(field.label, 75), value: 'true' };
    return { type: 'checkboxes', action_id: FIELD_ACTION_ID, options: [option], ...(field.initial === 'true' ? { initial_options: [option] } : {}) };
  }
  if (field.kind === 'enum') {
    const options = (field.choices ?? []).slice(0, 100).map((choice) => ({ text: plain(choice.label, 75), value: choice.value.slice(0, 150) }));
    const initial = options.find((option) => option.value === field.initial);
    return { type: 'static_select', action_id: FIELD_ACTION_ID, options, ...(initial ? { initial_option: initial } : {}) };
  }
  return { type: 'plain_text_input', action_id: FIELD_ACTION_ID, ...(field.initial === undefined || field.secret ? {} : { initial_value: field.initial.slice(0, 3000) }) };
}

/** The form as a modal: one input per field, the question's id in `private_metadata`. */
export function questionModal(question: McpQuestion, fields: readonly QuestionField[]): Record<string, unknown> {
  const hint = (field: QuestionField): string | undefined =>
    [field.description, field.kind === 'number' || field.kind === 'integer' ? `A ${field.kind === 'integer' ? 'whole number' : 'number'}.` : undefined, field.secret ? 'Sent to the server only; never logged.' : undefined].filter(Boolean).join(' ') || undefined;
  return {
    type: 'modal',
    callback_id: ELICIT_CALLBACK_ID,
    private_metadata: question.id,
    title: plain(question.server, 24),
    submit: plain('Send', 24),
    close: plain('Close', 24),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: safeText(question.message).slice(0, 3000) || ' ' } },
      ...fields.slice(0, 99).map((field) => ({
        type: 'input',
        block_id: field.name.slice(0, 255),
        label: plain(field.label, 2000),
        element: inputElement(field),
        optional: !field.required || field.kind === 'boolean',
        ...(hint(field) === undefined ? {} : { hint: plain(hint(field)!, 2000) }),
      })),
    ],
  };
}
