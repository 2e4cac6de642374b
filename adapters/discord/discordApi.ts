// The few REST calls the adapter makes itself (messages, threads, files, typing), none of which pings anyone.
import { randomBytes } from 'node:crypto';
import { DiscordAPIError, type REST, Routes } from 'discord.js';
import { z } from 'zod';

/** Nothing the bot posts pings anyone unless a caller names the one user it means to notify. */
export const NO_PINGS = { parse: [] as string[] };

export interface MessageBody {
  content: string;
  components?: unknown[];
  /** Users this message may notify (the approval question notifies its requester); nobody else ever. */
  notify?: string[];
  /** Text files attached to a new message (an approval question too long to show whole). */
  files?: Array<{ name: string; content: string }>;
}

const created = z.object({ id: z.string() });

/** A message as GET /channels/{id}/messages returns it (the fields the adapter reads). */
const listedMessage = z.object({
  id: z.string(),
  content: z.string().default(''),
  timestamp: z.string(),
  author: z.object({ id: z.string(), username: z.string(), global_name: z.string().nullish(), bot: z.boolean().optional() }),
  member: z.object({ nick: z.string().nullish() }).optional(),
  attachments: z.array(z.object({ filename: z.string() })).default([]),
});
export type ListedMessage = z.infer<typeof listedMessage>;

const guildMember = z.object({ roles: z.array(z.string()).default([]), user: z.object({ bot: z.boolean().optional() }).optional() });

/** Discord's error code for a failed call, when Discord gave one. */
export function discordErrorCode(error: unknown): number | undefined {
  return error instanceof DiscordAPIError && typeof error.code === 'number' ? error.code : undefined;
}

/**
 * The few REST calls the adapter makes outside discord.js's interaction helpers, shaped here so that every one
 * carries allowed_mentions. Channel ids are used directly: nothing depends on discord.js's cache (threads made
 * before a restart, DMs).
 */
export class DiscordApi {
  constructor(private readonly rest: REST) {}

  private body(message: MessageBody): Record<string, unknown> {
    return {
      content: message.content,
      ...(message.components ? { components: message.components } : {}),
      allowed_mentions: message.notify?.length ? { parse: [], users: message.notify } : NO_PINGS,
    };
  }

  /** Posts a message. The nonce makes Discord drop a duplicate if the REST client retries after a lost answer. */
  async post(channelId: string, message: MessageBody): Promise<string> {
    const files = message.files ?? [];
    const body = {
      ...this.body(message),
      nonce: randomBytes(12).toString('base64url'),
      enforce_nonce: true,
      ...(files.length > 0 ? { attachments: files.map((file, index) => ({ id: index, filename: file.name })) } : {}),
    };
    const raw = files.map((file) => ({ name: file.name, data: Buffer.from(file.content, 'utf8'), contentType: 'text/plain; charset=utf-8' }));
    return created.parse(await this.rest.post(Routes.channelMessages(channelId), { body, ...(raw.length > 0 ? { files: raw } : {}) })).id;
  }

  /** Posts a message carrying one file (multipart: the body as payload_json, the bytes as files[0]). */
  async postFile(channelId: string, message: MessageBody, file: { name: string; bytes: Uint8Array }): Promise<string> {
    const body = { ...this.body(message), nonce: randomBytes(12).toString('base64url'), enforce_nonce: true };
    return created.parse(await this.rest.post(Routes.channelMessages(channelId), { body, files: [{ name: file.name, data: Buffer.from(file.bytes) }] })).id;
  }

  /** Up to `limit` (≤ 100) messages of a channel before a message, newest first. */
  async messagesBefore(channelId: string, before: string, limit: number): Promise<ListedMessage[]> {
    const query = new URLSearchParams({ before, limit: String(Math.min(Math.max(limit, 1), 100)) });
    return z.array(listedMessage).parse(await this.rest.get(Routes.channelMessages(channelId), { query }));
  }

  async edit(channelId: string, messageId: string, message: MessageBody): Promise<void> {
    await this.rest.patch(Routes.channelMessage(channelId, messageId), { body: this.body(message) });
  }

  async remove(channelId: string, messageId: string): Promise<void> {
    await this.rest.delete(Routes.channelMessage(channelId, messageId));
  }

  /** Shows "skillbot is typing…" for about 10 seconds. */
  async typing(channelId: string): Promise<void> {
    await this.rest.post(Routes.channelTyping(channelId));
  }

  /** Opens a public thread on a message; returns the thread's id. */
  async startThread(channelId: string, messageId: string, name: string): Promise<string> {
    const body = { name, auto_archive_duration: 1440 };
    return created.parse(await this.rest.post(Routes.threads(channelId, messageId), { body })).id;
  }

  /** The DM channel with a user (Discord makes it on first use). */
  async openDm(userId: string): Promise<string> {
    return created.parse(await this.rest.post(Routes.userChannels(), { body: { recipient_id: userId } })).id;
  }

  /** A guild member's role ids and whether the account is a bot (GET /guilds/{guild}/members/{user}; no intent needed). */
  async member(guildId: string, userId: string): Promise<{ roles: string[]; bot: boolean }> {
    const member = guildMember.parse(await this.rest.get(Routes.guildMember(guildId, userId)));
    return { roles: member.roles, bot: member.user?.bot === true };
  }

  /** Replaces the bot's slash commands: in one guild (instant) or globally. */
  async registerCommands(applicationId: string, guildId: string | undefined, commands: unknown[]): Promise<void> {
    const route = guildId ? Routes.applicationGuildCommands(applicationId, guildId) : Routes.applicationCommands(applicationId);
    await this.rest.put(route, { body: commands });
  }
}
