// What people do in the fake Discord: write messages, use slash commands, type into autocomplete, click buttons,
// submit modals.
import { randomBytes } from 'node:crypto';
import { INTENTS, type FakeGateway } from './gateway.ts';
import { MODAL_SUBMIT, shownModal, submissionData } from './modals.ts';
import { CHANNEL_TYPES, type DiscordWorld, type FakeChannel, type FakeInteraction, type FakeMessage, type FakeUser } from './world.ts';

const INTERACTION = { command: 2, component: 3, autocomplete: 4 } as const;

export class UserActions {
  constructor(
    private readonly world: DiscordWorld,
    private readonly gateway: FakeGateway,
  ) {}

  /** A message by a person in a guild channel, thread or DM channel. */
  say(user: FakeUser, channel: FakeChannel, content: string, files: Array<{ name: string; contentType: string; bytes: Buffer | string }> = []): FakeMessage {
    const attachments = files.map((file) => ({
      id: this.world.ids.next(),
      filename: file.name,
      contentType: file.contentType,
      bytes: Buffer.isBuffer(file.bytes) ? file.bytes : Buffer.from(file.bytes, 'utf8'),
    }));
    const message = this.world.addMessage({ channelId: channel.id, author: user, content, source: 'user', attachments });
    this.redeliver(message);
    return message;
  }

  /** Sends MESSAGE_CREATE for a person's message (again). */
  redeliver(message: FakeMessage): void {
    const { content } = message;
    const dm = this.world.channels.get(message.channelId)?.type === CHANNEL_TYPES.dm;
    // Discord withholds content without the MessageContent intent, except in DMs and when the bot is mentioned.
    const mentionsBot = new RegExp(`<@!?${this.world.bot.id}>|<@&${this.world.botRoleId}>`).test(content);
    this.gateway.dispatch({
      t: 'MESSAGE_CREATE',
      d: this.world.messagePayload(message),
      intent: dm ? INTENTS.DirectMessages : INTENTS.GuildMessages,
      contentGated: !dm && !mentionsBot,
    });
  }

  /** A slash command (`options`: string options by name). */
  slash(user: FakeUser, channel: FakeChannel, name: string, options: Record<string, string> = {}): FakeInteraction {
    return this.#dispatch(user, channel, INTERACTION.command, {
      id: this.#commandId(name),
      name,
      type: 1,
      options: Object.entries(options).map(([optionName, value]) => ({ name: optionName, type: 3, value })),
    });
  }

  /** Typing into an autocompleted option: `focused` names the option being typed. */
  autocomplete(user: FakeUser, channel: FakeChannel, name: string, options: Record<string, string>, focused: string): FakeInteraction {
    return this.#dispatch(user, channel, INTERACTION.autocomplete, {
      id: this.#commandId(name),
      name,
      type: 1,
      options: Object.entries(options).map(([optionName, value]) => ({ name: optionName, type: 3, value, ...(optionName === focused ? { focused: true } : {}) })),
    });
  }

  /** A click on a button of a message. */
  click(user: FakeUser, message: FakeMessage, customId: string): FakeInteraction {
    const channel = this.world.channels.get(message.channelId);
    if (!channel) throw new Error(`the fake has no channel ${message.channelId}`);
    return this.#dispatch(user, channel, INTERACTION.component, { custom_id: customId, component_type: 2 }, message);
  }

  /** Choosing `values` in a string select menu of a message (its menu closed with those picked). */
  select(user: FakeUser, message: FakeMessage, customId: string, values: string[]): FakeInteraction {
    const channel = this.world.channels.get(message.channelId);
    if (!channel) throw new Error(`the fake has no channel ${message.channelId}`);
    return this.#dispatch(user, channel, INTERACTION.component, { custom_id: customId, component_type: 3, values }, message);
  }

  /** Submits the modal the bot answered `opened` with; `answers` by field label (see modals.ts). */
  submitModal(user: FakeUser, opened: FakeInteraction, answers: Record<string, string | string[]>): FakeInteraction {
    if (opened.callbackType !== 9 || opened.callbackData === undefined) throw new Error('the bot answered that interaction with no modal');
    const channel = this.world.channels.get(opened.channelId);
    if (!channel) throw new Error(`the fake has no channel ${opened.channelId}`);
    const message = opened.componentMessageId ? this.world.message(opened.componentMessageId) : undefined;
    return this.#dispatch(user, channel, MODAL_SUBMIT, submissionData(shownModal(opened.callbackData), answers), message);
  }

  #commandId(name: string): string {
    for (const registration of [...this.world.registrations].reverse()) {
      const command = registration.commands.find((candidate) => candidate.name === name);
      if (command) return String(command.id);
    }
    // Discord only delivers registered commands: a test using an unregistered one has a bug.
    throw new Error(`/${name} was never registered with the fake`);
  }

  #dispatch(user: FakeUser, channel: FakeChannel, type: number, data: Record<string, unknown>, message?: FakeMessage): FakeInteraction {
    const { world } = this;
    const interaction: FakeInteraction = {
      id: world.ids.next(),
      token: `aW50ZXJhY3Rpb24${randomBytes(24).toString('base64url')}`,
      type,
      channelId: channel.id,
      user,
      createdAt: Date.now(),
      tokenExpired: false,
      ...(message ? { componentMessageId: message.id } : {}),
    };
    world.interactions.set(interaction.id, interaction);
    const inGuild = channel.guildId !== undefined;
    this.gateway.dispatch({
      t: 'INTERACTION_CREATE',
      d: {
        id: interaction.id,
        application_id: world.applicationId,
        type,
        token: interaction.token,
        version: 1,
        data: inGuild && (type === INTERACTION.command || type === INTERACTION.autocomplete) ? { ...data, guild_id: channel.guildId } : data,
        channel_id: channel.id,
        channel: world.channelPayload(channel),
        ...(inGuild ? { guild_id: channel.guildId, member: world.memberPayload(user, true) } : { user: world.userPayload(user) }),
        ...(message ? { message: world.messagePayload(message) } : {}),
        app_permissions: '2199023255551',
        locale: 'en-US',
        ...(inGuild ? { guild_locale: 'en-US' } : {}),
        entitlements: [],
        authorizing_integration_owners: inGuild ? { '0': channel.guildId } : { '1': user.id },
        context: inGuild ? 0 : 1,
        attachment_size_limit: 10_485_760,
      },
    });
    return interaction;
  }
}
