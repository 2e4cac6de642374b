// Interaction callbacks (the 3-second answer, a modal among them) and the interaction webhook (follow-ups for 15 minutes).
import type { AllowedMentions } from './mentions.ts';
import { modalError } from './modals.ts';
import { INTENTS } from './gateway.ts';
import type { RestAnswer, RestContext, RestRequest } from './rest.ts';
import { messageBodyError } from './validation.ts';
import { CHANNEL_TYPES, type FakeInteraction, type FakeMessage } from './world.ts';

export interface InteractionRules {
  /** An interaction not answered within this many ms is gone ("Unknown interaction"), as after Discord's 3 s. */
  ackWindowMs: number;
  /** The interaction token (webhook) stops working after this many ms (Discord: 15 minutes). */
  tokenTtlMs: number;
}

const LOADING = 128;
const EPHEMERAL = 64;

const asBody = (body: unknown): Record<string, unknown> => (body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {});
const fail = (status: number, code: number, message: string): RestAnswer => ({ status, body: { code, message } });

function createResponseMessage(ctx: RestContext, interaction: FakeInteraction, data: Record<string, unknown>, source: FakeMessage['source']): FakeMessage {
  const message = ctx.world.addMessage({
    channelId: interaction.channelId,
    author: ctx.world.bot,
    content: typeof data.content === 'string' ? data.content : '',
    components: Array.isArray(data.components) ? data.components : [],
    flags: typeof data.flags === 'number' ? data.flags : 0,
    allowedMentions: data.allowed_mentions as AllowedMentions | undefined,
    source,
    interactionId: interaction.id,
  });
  if (!message.ephemeral) {
    const dm = ctx.world.channels.get(message.channelId)?.type === CHANNEL_TYPES.dm;
    ctx.gateway.dispatch({ t: 'MESSAGE_CREATE', d: ctx.world.messagePayload(message), intent: dm ? INTENTS.DirectMessages : INTENTS.GuildMessages });
  }
  return message;
}

function choicesError(data: Record<string, unknown>): RestAnswer | undefined {
  const choices = data.choices;
  if (!Array.isArray(choices) || choices.length > 25) return fail(400, 50035, 'choices: Must be 25 or fewer in length.');
  for (const choice of choices) {
    const { name, value } = asBody(choice);
    if (typeof name !== 'string' || name.length < 1 || name.length > 100) return fail(400, 50035, 'choices.name: Must be between 1 and 100 in length.');
    if (typeof value !== 'string' || value.length > 100) return fail(400, 50035, 'choices.value: Must be 100 or fewer in length.');
  }
  return undefined;
}

export function interactionCallback(ctx: RestContext, req: RestRequest, id: string, token: string): RestAnswer {
  const interaction = ctx.world.interactions.get(id);
  if (!interaction || interaction.token !== token) return fail(404, 10062, 'Unknown interaction');
  const age = Date.now() - interaction.createdAt;
  if (age > ctx.rules.ackWindowMs) return fail(404, 10062, 'Unknown interaction');
  if (interaction.callbackType !== undefined) return fail(400, 40060, 'Interaction has already been acknowledged.');
  const body = asBody(req.body);
  const data = asBody(body.data);
  const component = interaction.componentMessageId ? ctx.world.message(interaction.componentMessageId) : undefined;
  let message: FakeMessage | undefined;
  switch (body.type) {
    case 4: {
      const error = messageBodyError(data, true);
      if (error) return error;
      message = createResponseMessage(ctx, interaction, data, 'interaction');
      break;
    }
    case 5:
      message = createResponseMessage(ctx, interaction, { ...data, flags: LOADING | (Number(data.flags ?? 0) & EPHEMERAL) }, 'interaction');
      break;
    case 6:
      if (!component) return fail(400, 40043, 'This interaction type cannot be deferred as an update');
      message = component;
      break;
    case 7: {
      if (!component) return fail(400, 40043, 'This interaction type cannot update a message');
      const error = messageBodyError(data, false);
      if (error) return error;
      ctx.world.editMessage(component, data);
      message = component;
      break;
    }
    case 8: {
      if (interaction.type !== 4) return fail(400, 50035, 'Only autocomplete interactions take choices');
      const error = choicesError(data);
      if (error) return error;
      break;
    }
    case 9: {
      // A modal answers a command or a component, never a modal's submission nor autocomplete.
      if (interaction.type !== 2 && interaction.type !== 3) return fail(400, 50035, 'This interaction cannot be answered with a modal');
      const error = modalError(data);
      if (error) return error;
      break;
    }
    default:
      return fail(400, 50035, `Invalid interaction callback type ${String(body.type)}`);
  }
  interaction.callbackType = body.type;
  interaction.callbackAfterMs = age;
  interaction.callbackData = data;
  if (message) interaction.originalMessageId = message.id;
  if (req.query.with_response !== 'true') return { status: 204 };
  return {
    status: 200,
    body: {
      interaction: {
        id: interaction.id,
        type: interaction.type,
        response_message_id: message?.id,
        response_message_loading: message ? (message.flags & LOADING) !== 0 : false,
        response_message_ephemeral: message?.ephemeral ?? false,
      },
      resource: { type: body.type, ...(message ? { message: ctx.world.messagePayload(message) } : {}) },
    },
  };
}

/** `/webhooks/{app}/{token}` (follow-ups) and `/webhooks/{app}/{token}/messages/{id|@original}`. */
export function webhookRoute(ctx: RestContext, req: RestRequest, app: string, token: string, messageId: string | undefined): RestAnswer {
  const interaction = [...ctx.world.interactions.values()].find((candidate) => candidate.token === token);
  if (app !== ctx.world.applicationId || !interaction || interaction.callbackType === undefined) return fail(404, 10015, 'Unknown Webhook');
  if (interaction.tokenExpired || Date.now() - interaction.createdAt > ctx.rules.tokenTtlMs) return fail(401, 50027, 'Invalid Webhook Token');
  const body = asBody(req.body);
  if (messageId === undefined) {
    if (req.method !== 'POST') return fail(405, 0, '405: Method Not Allowed');
    const error = messageBodyError(body, true);
    if (error) return error;
    const original = interaction.originalMessageId ? ctx.world.message(interaction.originalMessageId) : undefined;
    // After a deferred reply, Discord turns the first follow-up into the "thinking" message itself.
    if (original && (original.flags & LOADING) !== 0 && interaction.callbackType === 5) {
      ctx.world.editMessage(original, body);
      return { status: 200, body: ctx.world.messagePayload(original) };
    }
    const message = createResponseMessage(ctx, interaction, body, 'webhook');
    return req.query.wait === 'true' ? { status: 200, body: ctx.world.messagePayload(message) } : { status: 204 };
  }
  const target = ctx.world.message(messageId === '@original' ? (interaction.originalMessageId ?? '') : messageId);
  if (!target || target.deleted || (target.interactionId !== interaction.id && target.id !== interaction.originalMessageId)) return fail(404, 10008, 'Unknown Message');
  switch (req.method) {
    case 'GET':
      return { status: 200, body: ctx.world.messagePayload(target) };
    case 'PATCH': {
      const error = messageBodyError(body, false);
      if (error) return error;
      ctx.world.editMessage(target, body);
      return { status: 200, body: ctx.world.messagePayload(target) };
    }
    case 'DELETE':
      target.deleted = true;
      return { status: 204 };
    default:
      return fail(405, 0, '405: Method Not Allowed');
  }
}
