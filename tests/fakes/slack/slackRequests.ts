// What Slack sends to a bot's Request URL: events, slash commands and button clicks, signed the way Slack signs
// them (v0 HMAC-SHA256 of `v0:{timestamp}:{body}` in x-slack-signature, with x-slack-request-timestamp).
import { createHmac, randomBytes } from 'node:crypto';

export function slackSignature(signingSecret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export interface SendOptions {
  /** Seconds since the epoch; default now. */
  timestamp?: number;
  /** Override the signature (a forged or broken request). */
  signature?: string;
  /** Sets x-slack-retry-num / x-slack-retry-reason, as Slack's retries carry. */
  retryNum?: number;
  retryReason?: string;
}

export interface SlackResponse {
  status: number;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
}

export interface UserMessage {
  channel: string;
  user: string;
  text: string;
  ts?: string;
  threadTs?: string;
  /** `channel` (default), `group`, `im`, `mpim`. */
  channelType?: string;
  /** Files shared with the message (FakeSlack.shareFile entries): a `file_share` message, as Slack sends it. */
  files?: Array<Record<string, unknown>>;
  /** Written by an app (chat.postMessage with its bot token): Slack adds its `bot_id` and `bot_profile`; `user` is its bot user. */
  botId?: string;
}

export interface ClickInput {
  user: string;
  channel: string;
  messageTs: string;
  threadTs?: string;
  actionId: string;
  value: string;
}

export class SlackSender {
  /** Message ts values start at a random second, so two senders (a restart test) never reuse one. */
  #tsSecond = 1_712_000_000 + Math.floor(Math.random() * 1_000_000);
  #tsCount = 0;

  constructor(
    /** The bot's Request URL, e.g. http://127.0.0.1:PORT/slack/events */
    private readonly url: string,
    private readonly signingSecret: string,
    private readonly workspace: RequestWorkspace,
  ) {}

  /** A fresh message ts, shaped like Slack's and distinct from the fake Web API's (1800000000.*). */
  nextTs(): string {
    this.#tsCount += 1;
    return `${this.#tsSecond}.${String(this.#tsCount).padStart(6, '0')}`;
  }

  async send(body: string, contentType: string, options: SendOptions = {}): Promise<SlackResponse> {
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': options.signature ?? slackSignature(this.signingSecret, timestamp, body),
    };
    if (options.retryNum !== undefined) headers['x-slack-retry-num'] = String(options.retryNum);
    if (options.retryReason !== undefined) headers['x-slack-retry-reason'] = options.retryReason;
    const response = await fetch(this.url, { method: 'POST', headers, body });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json };
  }

  /** An Events API envelope around `event`. Returns the response and the event id used. */
  async event(event: Record<string, unknown>, options: SendOptions & { eventId?: string } = {}): Promise<SlackResponse & { eventId: string }> {
    const body = eventBody(this.workspace, event, options.eventId);
    return { ...(await this.send(JSON.stringify(body), 'application/json', options)), eventId: body.event_id };
  }

  /** A `message` event (message.channels / message.im …). */
  message(input: UserMessage, options: SendOptions & { eventId?: string } = {}): Promise<SlackResponse & { eventId: string }> {
    return this.event(messageEvent('message', { ...input, ts: input.ts ?? this.nextTs() }), options);
  }

  /** An `app_mention` event (Slack sends it besides the `message` event when the bot is @mentioned). */
  mention(input: UserMessage, options: SendOptions & { eventId?: string } = {}): Promise<SlackResponse & { eventId: string }> {
    return this.event(messageEvent('app_mention', { ...input, ts: input.ts ?? this.nextTs() }), options);
  }

  /** A slash command, as the form body Slack posts. */
  command(command: string, text: string, where: { channel: string; user: string; responseUrl?: string }, options: SendOptions = {}): Promise<SlackResponse> {
    const form = new URLSearchParams(commandBody(this.workspace, command, text, where));
    return this.send(form.toString(), 'application/x-www-form-urlencoded', options);
  }

  /** A click on a button of the App Home tab (a `block_actions` payload from a view, not a message). */
  homeClick(input: { user: string; actionId: string; value: string }, options: SendOptions = {}): Promise<SlackResponse> {
    const payload = {
      type: 'block_actions',
      user: { id: input.user, username: input.user.toLowerCase(), team_id: this.workspace.teamId },
      api_app_id: 'AFAKEAPP',
      token: 'legacy-verification-token',
      container: { type: 'view', view_id: 'VHOME' },
      trigger_id: `${Date.now()}.${randomBytes(4).toString('hex')}`,
      team: { id: this.workspace.teamId, domain: 'fake' },
      view: { id: 'VHOME', type: 'home' },
      actions: [{ action_id: input.actionId, block_id: 'home', text: { type: 'plain_text', text: input.actionId }, value: input.value, type: 'button', action_ts: `${Date.now() / 1000}` }],
    };
    return this.send(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), 'application/x-www-form-urlencoded', options);
  }

  /** Picks in a message's multi-select (`blockId` is the block holding it), as the `payload` Slack posts. */
  select(input: Omit<ClickInput, 'value'> & { blockId: string; values: string[] }, options: SendOptions = {}): Promise<SlackResponse> {
    const payload = clickPayload(this.workspace, { ...input, value: '' });
    const option = (value: string) => ({ text: { type: 'plain_text', text: value, emoji: true }, value });
    payload.actions = [{ type: 'multi_static_select', action_id: input.actionId, block_id: input.blockId, selected_options: input.values.map(option), action_ts: `${Date.now() / 1000}` }];
    return this.send(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), 'application/x-www-form-urlencoded', options);
  }

  /**
   * A modal's submission (`view_submission`), as the `payload` Slack posts: `answers` by block id, text for a text
   * input, the picked value for a static_select, `true` ticking a checkbox. The bot's answer (an empty 200 closes
   * the modal; `response_action: errors` keeps it open with a message under each named input) is the response.
   */
  submitView(input: { user: string; view: { id: string; callback_id?: string; private_metadata?: string; blocks: Array<Record<string, unknown>> }; answers: Record<string, string | boolean> }, options: SendOptions = {}): Promise<SlackResponse> {
    const values: Record<string, Record<string, unknown>> = {};
    for (const block of input.view.blocks) {
      if (block.type !== 'input') continue;
      const element = block.element as { type: string; action_id: string; options?: Array<{ value: string }> };
      const answer = input.answers[String(block.block_id)];
      const state =
        element.type === 'checkboxes'
          ? { type: 'checkboxes', selected_options: answer === true ? (element.options ?? []) : [] }
          : element.type === 'static_select'
            ? { type: 'static_select', selected_option: (element.options ?? []).find((option) => option.value === answer) ?? null }
            : { type: element.type, value: typeof answer === 'string' ? answer : null };
      values[String(block.block_id)] = { [element.action_id]: state };
    }
    const payload = {
      type: 'view_submission',
      team: { id: this.workspace.teamId, domain: 'fake' },
      user: { id: input.user, username: input.user.toLowerCase(), name: input.user.toLowerCase(), team_id: this.workspace.teamId },
      api_app_id: 'AFAKEAPP',
      token: 'legacy-verification-token',
      trigger_id: `${Date.now()}.${randomBytes(4).toString('hex')}`,
      view: { id: input.view.id, team_id: this.workspace.teamId, type: 'modal', blocks: input.view.blocks, private_metadata: input.view.private_metadata ?? '', callback_id: input.view.callback_id ?? '', state: { values }, hash: randomBytes(6).toString('hex'), app_id: 'AFAKEAPP', bot_id: 'BFAKE' },
      response_urls: [],
      is_enterprise_install: false,
    };
    return this.send(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), 'application/x-www-form-urlencoded', options);
  }

  /** A button click, as the `payload` form field Slack posts. */
  click(input: ClickInput, options: SendOptions = {}): Promise<SlackResponse> {
    const payload = clickPayload(this.workspace, input);
    return this.send(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), 'application/x-www-form-urlencoded', options);
  }
}

/** Which workspace and bot a request is for. */
export interface RequestWorkspace {
  teamId: string;
  botUserId: string;
}

/** The Events API body around `event` (what HTTP delivers, and a Socket Mode `events_api` envelope's payload). */
export function eventBody(workspace: RequestWorkspace, event: Record<string, unknown>, eventId?: string): Record<string, unknown> & { event_id: string } {
  return {
    token: 'legacy-verification-token',
    team_id: workspace.teamId,
    api_app_id: 'AFAKEAPP',
    event,
    type: 'event_callback',
    event_id: eventId ?? `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ enterprise_id: null, team_id: workspace.teamId, user_id: workspace.botUserId, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
  };
}

/** A slash command's fields (form-encoded over HTTP; a `slash_commands` envelope's payload in Socket Mode). */
export function commandBody(
  workspace: RequestWorkspace,
  command: string,
  text: string,
  where: { channel: string; user: string; responseUrl?: string },
): Record<string, string> {
  return {
    token: 'legacy-verification-token',
    team_id: workspace.teamId,
    team_domain: 'fake',
    channel_id: where.channel,
    channel_name: 'general',
    user_id: where.user,
    user_name: where.user.toLowerCase(),
    command,
    text,
    api_app_id: 'AFAKEAPP',
    is_enterprise_install: 'false',
    response_url: where.responseUrl ?? 'http://127.0.0.1:9/unused',
    trigger_id: `${Date.now()}.${randomBytes(4).toString('hex')}`,
  };
}

/** A `block_actions` payload for a click on a message's button. */
export function clickPayload(workspace: RequestWorkspace, input: ClickInput): Record<string, unknown> {
  return {
    type: 'block_actions',
    user: { id: input.user, username: input.user.toLowerCase(), name: input.user.toLowerCase(), team_id: workspace.teamId },
    api_app_id: 'AFAKEAPP',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: input.messageTs, channel_id: input.channel, is_ephemeral: false, ...(input.threadTs ? { thread_ts: input.threadTs } : {}) },
    trigger_id: `${Date.now()}.${randomBytes(4).toString('hex')}`,
    team: { id: workspace.teamId, domain: 'fake' },
    channel: { id: input.channel, name: 'general' },
    message: { type: 'message', ts: input.messageTs, ...(input.threadTs ? { thread_ts: input.threadTs } : {}) },
    response_url: 'http://127.0.0.1:9/unused',
    actions: [
      {
        action_id: input.actionId,
        block_id: 'hitl',
        text: { type: 'plain_text', text: input.actionId },
        value: input.value,
        type: 'button',
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

/** A `message` or `app_mention` event from a person. */
export function messageEvent(type: 'message' | 'app_mention', input: UserMessage & { ts: string }): Record<string, unknown> {
  const ts = input.ts;
  return {
    type,
    user: input.user,
    text: input.text,
    ts,
    event_ts: ts,
    channel: input.channel,
    ...(type === 'message' ? { channel_type: input.channelType ?? 'channel' } : {}),
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    ...(input.botId ? { bot_id: input.botId, app_id: `A${input.botId.slice(1)}`, bot_profile: { id: input.botId, name: input.botId.toLowerCase(), deleted: false } } : {}),
    ...(input.files?.length ? { files: input.files, upload: false, ...(type === 'message' ? { subtype: 'file_share' } : {}) } : {}),
    blocks: [],
  };
}
