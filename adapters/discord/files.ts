// Files in Discord: a message's attachments (fetched from Discord's CDN) and files skill scripts made (uploaded).
import type { Message } from 'discord.js';
import { boundedBody, type MessageFile } from '../../src/platform/index.ts';

/** A message's attachments as the core keeps them. */
export function attachmentsOf(message: Message): MessageFile[] {
  return [...message.attachments.values()].map((attachment) => ({
    id: attachment.id,
    name: attachment.name,
    mimeType: attachment.contentType ?? '',
    size: attachment.size,
    url: attachment.url,
  }));
}

/** Discord's CDN hosts, or the origin of DISCORD_API_URL (a proxy, a test server): nothing else is fetched. */
export function isAttachmentHost(url: URL, apiUrl: string | undefined): boolean {
  if (apiUrl !== undefined && url.origin === new URL(apiUrl).origin) return true;
  return url.protocol === 'https:' && (url.hostname === 'cdn.discordapp.com' || url.hostname === 'media.discordapp.net');
}

/** Downloads an attachment (Discord's CDN needs no token; its signed URL is the permission). */
export async function downloadAttachment(file: MessageFile, options: { apiUrl?: string; maxBytes: number }): Promise<Uint8Array> {
  const url = new URL(file.url);
  if (!isAttachmentHost(url, options.apiUrl)) throw new Error(`${url.hostname} is not a Discord attachment host`);
  const response = await fetch(url);
  if (!response.ok) {
    await response.body?.cancel();
    // Attachment URLs are signed and expire after about a day.
    throw new Error(`Discord answered HTTP ${response.status}${response.status === 404 || response.status === 403 ? ' (the link may have expired)' : ''}`);
  }
  return boundedBody(response, options.maxBytes);
}
