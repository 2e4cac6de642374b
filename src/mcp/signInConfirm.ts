// The last step of a sign-in: a browser brought tokens back (SignIns.complete held them under a short code shown on
// the callback page), and the person whose turn asked confirms, in the chat, that it was them: a question only
// they may answer, naming the account and the code. A yes joins the account to them; a no, a timeout or a stop
// drops it. So a link completed by someone else (login CSRF) joins nothing unless the person confirms it.
import type { ApprovalRuntime } from '../approvals/index.ts';
import type { SignIns } from './signIn.ts';

export interface ConfirmTurn {
  worldId: string;
  chatId: string;
  requesterId: string;
  turnId: string;
  approvalTimeoutMs: number;
}

export async function confirmSignIn(approvals: ApprovalRuntime, signIns: SignIns, server: string, turn: ConfirmTurn): Promise<boolean> {
  const held = await signIns.held(server, turn.requesterId);
  if (held === undefined) return false;
  const record = await approvals.request({
    worldId: turn.worldId,
    chatId: turn.chatId,
    requesterId: turn.requesterId,
    title: `Connect ${held.account} to ${server}?`,
    body:
      `A browser finished signing in to ${server} as ${held.account}, to be joined to you (${turn.requesterId}).\n` +
      `Its page shows a code. Answer yes only if it was your browser and the code is ${held.code}; otherwise no, and nothing is connected.`,
    options: ['yes_once', 'no'],
    defaultOption: 'no',
    timeoutMs: turn.approvalTimeoutMs,
    skillId: `mcp-sign-in:${server}`,
    skillHash: 'mcp-sign-in',
    items: [{ kind: 'tool', path: `sign in to ${server}`, args: [held.account, `code ${held.code}`] }],
    turnId: turn.turnId,
    answerers: [turn.requesterId],
    subject: 'mcp_sign_in',
  });
  const yes = record.outcome === 'yes_once' && approvals.isAuthentic(record);
  return signIns.settle(server, turn.requesterId, held.code, yes);
}
