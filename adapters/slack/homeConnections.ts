// The Core Home's "Your connected accounts": the MCP servers people sign in to one by one (http/sse without an
// operator's headers), each the viewer is connected to with a Disconnect button. A click removes the viewer's own
// sign-in only (the click names the server; the person is whoever clicked), as `skillbot mcp disconnect` does.
import { z } from 'zod';
import type { CoreMcp } from '../../src/platform/index.ts';
import type { SlackBlock } from './slackBlock.ts';
import { safeText } from './slackText.ts';

export const HOME_MCP_DISCONNECT_ACTION_ID = 'home_mcp_disconnect';
/** Servers shown (the Home view's 100 blocks are shared with skills and grants). */
const MAX_SERVERS = 10;

export const disconnectClickSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  actions: z.array(z.object({ action_id: z.literal(HOME_MCP_DISCONNECT_ACTION_ID), value: z.string().regex(/^[a-z0-9_-]{1,32}$/) })).min(1),
});

/** Nothing when no server needs a person's own sign-in. */
export async function connectionBlocks(mcp: CoreMcp | undefined, userId: string): Promise<SlackBlock[]> {
  const accounts = mcp === undefined ? [] : await mcp.accounts(userId);
  if (accounts.length === 0) return [];
  const blocks: SlackBlock[] = [{ type: 'divider' }, { type: 'header', text: { type: 'plain_text', text: 'Your connected accounts' } }];
  const connected = accounts.filter((account) => account.connected);
  for (const account of connected.slice(0, MAX_SERVERS)) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `*${safeText(account.server)}*: Claude calls its tools with your account, when you ask and approve.` },
      accessory: { type: 'button', action_id: HOME_MCP_DISCONNECT_ACTION_ID, text: { type: 'plain_text', text: 'Disconnect' }, value: account.server },
    });
  }
  const others = accounts.filter((account) => !account.connected).map((account) => safeText(account.server));
  const note =
    others.length === 0
      ? 'Disconnecting removes your sign-in; you are asked to connect again when Claude next needs it.'
      : `Not connected: ${others.join(', ')}. You get a private link to connect when Claude needs one of them for you.`;
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: note }] });
  return blocks;
}
