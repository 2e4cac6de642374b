// Servers' questions in Slack: the presenter (a card in the thread; a URL question as an ephemeral note to the
// requester), the buttons (open the modal, decline, cancel, the URL's accept) and the modal's submission, each
// answered through the core on whichever instance Slack reaches. Anyone but the requester is told so privately.
import type { App as BoltApp } from '@slack/bolt';
import { z } from 'zod';
import { type AnswerResult, type Core, type McpQuestion, type QuestionPresenter, questionFields } from '../../src/platform/index.ts';
import type { Logger } from '../../src/ops/log.ts';
import { messageRef, parseMessageRef, slackThreadOf } from './ids.ts';
import { ELICIT_CALLBACK_ID, FIELD_ACTION_ID, outcomeText, questionCardBlocks, questionCardText, questionModal, urlNoteBlocks } from './mcpQuestionCard.ts';
import { slackErrorCode, type SlackApi } from './slackApi.ts';

type Questions = NonNullable<Core['mcp']>['questions'];

export class SlackQuestionPresenter implements QuestionPresenter {
  constructor(private readonly api: SlackApi) {}

  async present(question: McpQuestion): Promise<string | undefined> {
    const place = slackThreadOf(question.chatId);
    if (place === undefined) throw new Error(`not a Slack chat id: ${question.chatId}`);
    if (question.mode === 'url') {
      await this.api.postEphemeral({ channel: place.channelId, user: question.requesterId, threadTs: place.threadTs, text: questionCardText(question), blocks: urlNoteBlocks(question) });
      return undefined;
    }
    const ts = await this.api.post({ channel: place.channelId, threadTs: place.threadTs, text: questionCardText(question), blocks: questionCardBlocks(question) });
    return messageRef(place.channelId, ts);
  }

  /** The card's buttons go and the outcome shows (an ephemeral URL note cannot be edited: it stays). */
  async resolved(question: McpQuestion): Promise<void> {
    const ref = parseMessageRef(question.platformRef);
    if (ref === undefined) return;
    const text = outcomeText(question);
    await this.api.update({ channel: ref.channelId, ts: ref.ts, text, blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text }] }] });
  }
}

const clickSchema = z.object({
  trigger_id: z.string().optional(),
  user: z.object({ id: z.string().min(1) }),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z.object({ channel_id: z.string().optional(), thread_ts: z.string().optional() }).optional(),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().optional() })).min(1),
});

const submissionSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  view: z.object({
    private_metadata: z.string(),
    state: z.object({ values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullish(), selected_option: z.object({ value: z.string() }).nullish(), selected_options: z.array(z.object({ value: z.string() })).optional() }))) }),
  }),
});

/** A closed question's words for a late click. */
function privateText(result: AnswerResult): string | undefined {
  if (result.kind === 'not_allowed') return result.text;
  if (result.kind === 'not_found') return 'This question no longer exists, so the click changed nothing.';
  if (result.kind === 'already_answered') return `This question is closed. ${outcomeText(result.question)}`;
  if (result.kind === 'invalid') return result.why;
  return undefined;
}

/** What each input of the submitted modal holds, as text (a checkbox ticked is `true`). */
function typedValues(values: z.infer<typeof submissionSchema>['view']['state']['values']): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(values).map(([name, inputs]) => {
      const input = inputs[FIELD_ACTION_ID];
      const text = input?.selected_options !== undefined ? (input.selected_options.length > 0 ? 'true' : 'false') : (input?.selected_option?.value ?? input?.value ?? undefined);
      return [name, text ?? undefined];
    }),
  );
}

async function onClick(questions: Questions, api: SlackApi, body: unknown, openModal: (triggerId: string, view: Record<string, unknown>) => Promise<unknown>): Promise<void> {
  const click = clickSchema.parse(body);
  const action = click.actions[0]!;
  const questionId = action.value ?? '';
  const userId = click.user.id;
  let result: AnswerResult | { kind: 'open'; question: McpQuestion };
  if (action.action_id === 'mcp_elicit_open') {
    result = await questions.opening(questionId, userId);
    if (result.kind === 'open' && result.question.schema !== undefined && click.trigger_id !== undefined) {
      await openModal(click.trigger_id, questionModal(result.question, questionFields(result.question.schema)));
      return;
    }
  } else {
    const kind = action.action_id === 'mcp_elicit_accept' ? 'accept' : action.action_id === 'mcp_elicit_decline' ? 'decline' : 'cancel';
    result = await questions.answer({ questionId, userId, action: kind });
  }
  const text = result.kind === 'open' ? undefined : privateText(result);
  const channel = click.container?.channel_id ?? click.channel?.id;
  if (text !== undefined && channel !== undefined) await api.postEphemeral({ channel, user: userId, text, ...(click.container?.thread_ts ? { threadTs: click.container.thread_ts } : {}) });
}

/** The field an error sentence names (by label or name), else the first: where the modal shows it. */
function fieldOfError(question: McpQuestion | undefined, why: string, blockIds: string[]): string {
  const fields = question?.schema === undefined ? [] : questionFields(question.schema);
  return fields.find((field) => why.includes(`/${field.name}`) || why.startsWith(field.label))?.name ?? blockIds[0] ?? 'value';
}

export function registerQuestionActions(bolt: BoltApp, deps: { core: Core; api: SlackApi; logger: Logger }): void {
  const questions = deps.core.mcp?.questions;
  if (questions === undefined) return;
  bolt.action(/^mcp_elicit_(open|decline|cancel|accept)$/, async ({ ack, body, client }) => {
    await ack();
    await onClick(questions, deps.api, body, (triggerId, view) => client.views.open({ trigger_id: triggerId, view: view as never })).catch((error: unknown) =>
      deps.logger.warn({ err: slackErrorCode(error) }, 'handling an MCP question click failed'),
    );
  });
  bolt.view(ELICIT_CALLBACK_ID, async ({ ack, body }) => {
    const parsed = submissionSchema.safeParse(body);
    if (!parsed.success) return void (await ack());
    const { user, view } = parsed.data;
    const result = await questions.answer({ questionId: view.private_metadata, userId: user.id, action: 'accept', typed: typedValues(view.state.values) });
    const text = privateText(result);
    if (text === undefined) return void (await ack());
    const question = result.kind === 'already_answered' ? result.question : (await questions.opening(view.private_metadata, user.id).then((open) => (open.kind === 'open' ? open.question : undefined)));
    await ack({ response_action: 'errors', errors: { [fieldOfError(question, text, Object.keys(view.state.values))]: text.slice(0, 150) } });
  });
}
