// The decision "may this skill code run now?": a session grant, or a person's answer.
import { SYSTEM_DECIDER_PREFIX } from './approvalRecord.ts';
import type { ApprovalRuntime } from './approvals.ts';
import type { AuditLog } from './audit.ts';
import { grantKey, type Grants } from './grants.ts';
import { APPROVAL_OPTIONS, type ApprovalItem, type ApprovalOutcome } from './types.ts';

export interface GateDeps {
  approvals: ApprovalRuntime;
  grants: Grants;
  audit: AuditLog;
  now?: () => number;
}

export interface AuthorizeInput {
  worldId: string;
  chatId: string;
  /** The person whose message started the turn. */
  requesterId: string;
  skill: { id: string; hash: string };
  items: ApprovalItem[];
  timeoutMs: number;
  turnId?: string;
  /** See ApprovalRequestInput.resumeKey: a re-run of the turn awaits the question its first run showed. */
  resumeKey?: string;
}

/** Why code did not run. */
export type DeniedOutcome = Exclude<ApprovalOutcome, 'yes_once' | 'yes_in_session'>;

/** `granted`: a session grant covered it and nobody was asked (no approvalId then). */
export type AuthorizeResult =
  | { allowed: true; outcome: 'yes_once' | 'yes_in_session' | 'granted'; decidedBy?: string; approvalId?: string }
  | { allowed: false; outcome: DeniedOutcome; decidedBy?: string; approvalId?: string };

const SHORT_HASH_LENGTH = 12;

export function shortHash(hash: string): string {
  return hash.slice(0, SHORT_HASH_LENGTH);
}

/** Quoted so spaces, quotes, newlines and bidi controls in an argument are visible, not rendered. */
function quoteArg(arg: string): string {
  return JSON.stringify(arg).replace(/[\u202a-\u202e\u2066-\u2069\u200e\u200f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The question's text: the skill, its short content hash, and every item with its arguments. */
export function formatApprovalBody(skill: { id: string; hash: string }, items: readonly ApprovalItem[]): string {
  const lines = [`Skill ${skill.id} (content ${shortHash(skill.hash)}) wants to run:`];
  for (const item of items) {
    const args = item.args.map(quoteArg).join(' ');
    lines.push(`• ${item.kind} ${quoteArg(item.path)}${args === '' ? '' : ` ${args}`}`);
  }
  return lines.join('\n');
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} minutes` : `${Math.round(minutes / 60)} hours`;
}

/** The plain sentence the model gets instead of output, so it never invents a result. */
export function notRunSentence(outcome: DeniedOutcome, decidedBy?: string, timeoutMs?: number): string {
  let why: string;
  if (outcome === 'timeout') {
    why = timeoutMs === undefined ? 'nobody answered the approval in time' : `nobody answered the approval within ${formatDuration(timeoutMs)}`;
  } else if (outcome === 'expired') {
    why = 'the approval expired before anyone answered (the bot restarted or shut down)';
  } else if (decidedBy === undefined || decidedBy.startsWith(SYSTEM_DECIDER_PREFIX)) {
    why = 'nobody could be asked for approval here, so the default answer (no) applied';
  } else {
    why = `it was declined by ${decidedBy}`;
  }
  return `The script did not run: ${why}. No output exists.`;
}

export async function authorize(deps: GateDeps, input: AuthorizeInput): Promise<AuthorizeResult> {
  const { approvals, grants, audit } = deps;
  const now = deps.now ?? Date.now;
  const key = grantKey(input.worldId, input.chatId, input.skill.id, input.skill.hash);
  const grant = await grants.get(key);
  if (grant !== undefined) {
    await audit.record({
      at: now(),
      kind: 'approval',
      worldId: input.worldId,
      chatId: input.chatId,
      skillId: input.skill.id,
      skillHash: input.skill.hash,
      items: input.items,
      requestedBy: input.requesterId,
      decidedBy: grant.grantedBy,
      outcome: 'granted',
      ...(input.turnId === undefined ? {} : { turnId: input.turnId }),
    });
    return { allowed: true, outcome: 'granted', decidedBy: grant.grantedBy };
  }

  // The runtime writes the audit record of the decision (including ones nobody awaits, such as restart expiry).
  const record = await approvals.request({
    worldId: input.worldId,
    chatId: input.chatId,
    requesterId: input.requesterId,
    title: `Run code from skill ${input.skill.id}?`,
    body: formatApprovalBody(input.skill, input.items),
    options: APPROVAL_OPTIONS,
    defaultOption: 'no',
    timeoutMs: input.timeoutMs,
    skillId: input.skill.id,
    skillHash: input.skill.hash,
    items: input.items,
    ...(input.turnId === undefined ? {} : { turnId: input.turnId }),
    ...(input.resumeKey === undefined ? {} : { resumeKey: input.resumeKey }),
  });
  const outcome = record.outcome ?? 'expired';
  const decided = { approvalId: record.id, ...(record.decidedBy === undefined ? {} : { decidedBy: record.decidedBy }) };
  // Only a person's yes lets code run; a timeout or expiry never does, whatever the default.
  if (outcome === 'yes_in_session') await grants.add(key, record.decidedBy ?? record.requesterId);
  if (outcome === 'yes_once' || outcome === 'yes_in_session') return { allowed: true, outcome, ...decided };
  return { allowed: false, outcome, ...decided };
}
