// Files in Slack: those a person shares (downloaded with the bot token) and those a skill script made (uploaded).
import { z } from 'zod';
import { boundedBody, type MessageFile } from '../../src/platform/index.ts';

/** The part of a `file_share` message's `files` the adapter reads. */
export const slackFileSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  title: z.string().optional(),
  mimetype: z.string().optional(),
  size: z.number().int().nonnegative().optional(),
  url_private: z.string().optional(),
  url_private_download: z.string().optional(),
});
export type SlackFile = z.infer<typeof slackFileSchema>;

/** A message's files as the core keeps them (files Slack gives no URL for, e.g. external ones, are skipped). */
export function messageFilesOf(files: readonly SlackFile[] | undefined): MessageFile[] {
  return (files ?? []).flatMap((file) => {
    const url = file.url_private_download ?? file.url_private;
    if (!url) return [];
    return [{ id: file.id, name: file.name ?? file.title ?? file.id, mimeType: file.mimetype ?? '', size: file.size ?? 0, url }];
  });
}

const MAX_REDIRECTS = 5;

/**
 * Where the bot token may be sent: Slack's own file hosts, or the origin of SLACK_API_URL (a proxy, a test
 * server). A URL anywhere else is refused, so the token never leaves Slack.
 */
export function tokenMayGo(url: URL, apiUrl: string | undefined): boolean {
  if (apiUrl !== undefined && url.origin === new URL(apiUrl).origin) return true;
  return url.protocol === 'https:' && (url.hostname === 'slack.com' || url.hostname.endsWith('.slack.com') || url.hostname.endsWith('.slack-edge.com'));
}

/**
 * Downloads a shared file with the bot token. Slack answers `url_private` with the file, or redirects (to a CDN,
 * or to its login page when the token lacks `files:read`): redirects are followed by hand so the token goes
 * only where tokenMayGo allows, and an HTML page where a file was expected is reported as the missing scope.
 */
export async function downloadSlackFile(file: MessageFile, options: { token: string; apiUrl?: string; maxBytes: number }): Promise<Uint8Array> {
  let url = new URL(file.url);
  if (!tokenMayGo(url, options.apiUrl)) throw new Error(`${url.hostname} is not a Slack file host`);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const authorised = tokenMayGo(url, options.apiUrl);
    const response = await fetch(url, { redirect: 'manual', headers: authorised ? { authorization: `Bearer ${options.token}` } : {} });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`Slack answered HTTP ${response.status}`);
    }
    const type = response.headers.get('content-type') ?? '';
    if (type.startsWith('text/html') && !file.mimeType.startsWith('text/html')) {
      await response.body?.cancel();
      throw new Error('Slack sent its login page instead: the app needs the files:read scope');
    }
    return boundedBody(response, options.maxBytes);
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects`);
}
