// The decision "may this skill code run now?": a session grant, or a person's answer.
import { SYSTEM_DECIDER_PREFIX, SYSTEM_DECIDERS } from './approvalRecord.ts';
import type { ApprovalRuntime } from './approvals.ts';
import type { AuditLog } from './audit.ts';
import { grantKey, routineGrantChat, type Grants } from './grants.ts';
import { APPROVAL_OPTIONS, type ApprovalItem, type ApprovalOption, type ApprovalOutcome } from './types.ts';
import { visible } from '../text/visible.ts';

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
  /** `hash`: the content to approve, as on disk now (see contentToApprove in approvedContent.ts). */
  skill: { id: string; hash: string };
  /** `shell`: Claude's bash tool (skill `bash`, hash SHELL_CONTENT); its question and grant speak of commands. */
  subject?: 'skill' | 'shell' | 'mcp_tool';
  items: ApprovalItem[];
  timeoutMs: number;
  turnId?: string;
  /** See ApprovalRequestInput.resumeKey: a re-run of the turn awaits the question its first run showed. */
  resumeKey?: string;
  /**
   * The question in the caller's words (an MCP tool call's card, src/mcp/approvalCard.ts) instead of a skill's;
   * `grant` is what "yes for this thread" would cover, absent when the options leave it out.
   */
  question?: (grant: GrantCover | undefined) => { title: string; body: string };
  /** The options offered (default all three); an MCP tool that needs a person each time leaves out yes_in_session. */
  options?: readonly ApprovalOption[];
  /**
   * The turn is this routine's run (IncomingMessage.origin): yes_in_session is "yes for this routine", a grant
   * keyed by the routine instead of the run's thread, created only by the owner's (the requester's) own answer.
   */
  routineId?: string;
}

/** What "yes for this thread" (or "for this routine") would cover; the card says it. */
export interface GrantCover {
  requesterId: string;
  ttlMs: number;
  routineId?: string;
}

/** Why code did not run. */
export type DeniedOutcome = Exclude<ApprovalOutcome, 'yes_once' | 'yes_in_session'>;

/**
 * `granted`: a session grant covered it and nobody was asked (no approvalId then). `skillHash`: the content
 * the approval or grant covered; every run under this decision must carry it as ExecRequest.expectedHash.
 */
export type AuthorizeResult =
  | { allowed: true; outcome: 'yes_once' | 'yes_in_session' | 'granted'; skillHash: string; decidedBy?: string; approvalId?: string }
  | { allowed: false; outcome: DeniedOutcome; decidedBy?: string; approvalId?: string; reason?: string };

const SHORT_HASH_LENGTH = 12;

/**
 * What a shell grant is keyed by in place of a content hash: the shell has no files to change, so a grant covers
 * the chat's commands for its requester (never a sha256, so it cannot stand for a skill named `bash`).
 */
export const SHELL_CONTENT = 'shell';

export function shortHash(hash: string): string {
  return hash.slice(0, SHORT_HASH_LENGTH);
}

/** Quoted so spaces and quotes are visible, and every invisible or formatting character named (<U+200B>). */
function quoteArg(arg: string): string {
  return `"${visible(arg).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A whole text (a file Claude wrote, a multi-line command) as an indented block, every line kept, none cut. */
function textBlock(text: string): string[] {
  return text.split('\n').map((line) => `    │ ${visible(line)}`);
}

/**
 * One item: its kind, its quoted path and arguments; a file's text and a command whole below it. A command is shown
 * verbatim, one or many lines, exactly as the shell gets it (quoted as an argument, its own quotes would read escaped).
 */
function itemLines(item: ApprovalItem): string[] {
  if (item.kind === 'command') return ['• command:', ...textBlock(item.path)];
  const [size, source, text] = item.args;
  if (item.kind === 'file' && text !== undefined) return [`• file ${quoteArg(item.path)} ${quoteArg(size ?? '')} ${quoteArg(source ?? '')}, whole:`, ...textBlock(text)];
  const args = item.args.map(quoteArg).join(' ');
  return [`• ${item.kind} ${quoteArg(item.path)}${args === '' ? '' : ` ${args}`}`];
}

/** The question's text: the skill, its short content hash, every item with its arguments, and what a session grant covers. */
export function formatApprovalBody(
  skill: { id: string; hash: string },
  items: readonly ApprovalItem[],
  grant?: GrantCover,
  subject: 'skill' | 'shell' | 'mcp_tool' = 'skill',
): string {
  if (grant?.routineId !== undefined) return [...questionLines(skill, items, subject), routineGrantSentence(skill, grant.routineId, grant, subject)].join('\n');
  if (subject === 'shell') {
    const lines = questionLines(skill, items, subject);
    if (grant !== undefined) {
      lines.push(
        `"Yes, for this thread" covers every shell command Claude runs in this thread for ${grant.requesterId}, until ` +
          `${formatDuration(grant.ttlMs)} after the answer. A request by someone else asks again.`,
      );
    }
    return lines.join('\n');
  }
  const lines = questionLines(skill, items, subject);
  if (grant !== undefined) {
    lines.push(
      `"Yes, for this thread" covers runs of ${visible(skill.id)} at this version (content ${shortHash(skill.hash)}) asked by ` +
        `${grant.requesterId}, in this thread only, until ${formatDuration(grant.ttlMs)} after the answer. ` +
        'Any change to its files, or a request by someone else, asks again.',
    );
  }
  return lines.join('\n');
}

function questionLines(skill: { id: string; hash: string }, items: readonly ApprovalItem[], subject: 'skill' | 'shell' | 'mcp_tool'): string[] {
  const head = subject === 'shell'
    ? "Claude wants to run a shell command in this thread's workspace (/workspace), in the sandbox:"
    : `Skill ${visible(skill.id)} (content ${shortHash(skill.hash)}) wants to run:`;
  return [head, ...items.flatMap(itemLines)];
}

/** What "Yes, for this routine" covers: every later run of the routine, for the same bytes, owner's answer only. */
function routineGrantSentence(skill: { id: string; hash: string }, routineId: string, grant: GrantCover, subject: 'skill' | 'shell' | 'mcp_tool'): string {
  const what = subject === 'shell' ? 'every shell command Claude runs' : `runs of ${visible(skill.id)} at this version (content ${shortHash(skill.hash)})`;
  return (
    `"Yes, for this routine" covers ${what} in every run of routine ${visible(routineId)} (each in its own thread), ` +
    `until ${formatDuration(grant.ttlMs)} after the answer or until the routine is removed. Only its owner ${grant.requesterId} can give it; ` +
    `${subject === 'shell' ? '' : 'any change to its files asks again; '}an approver's "yes" here counts for this run only.`
  );
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
  if (decidedBy === SYSTEM_DECIDERS.integrity) {
    why = 'its approval record in the store failed the integrity check (the bot did not write it), so it was ignored; ask again';
  } else if (outcome === 'timeout') {
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
  const grantChat = input.routineId === undefined ? input.chatId : routineGrantChat(input.routineId);
  const key = grantKey(input.worldId, grantChat, input.skill.id, input.skill.hash, input.requesterId);
  const turn = input.turnId === undefined ? {} : { turnId: input.turnId };
  const grant = await grants.get(key);
  if (grant !== undefined) {
    await audit.record({
      at: now(),
      kind: 'approval',
      worldId: input.worldId,
      chatId: input.chatId,
      skillId: input.skill.id,
      skillHash: grant.skillHash,
      items: input.items,
      requestedBy: input.requesterId,
      decidedBy: grant.grantedBy,
      outcome: 'granted',
      ...turn,
    });
    return { allowed: true, outcome: 'granted', skillHash: grant.skillHash, decidedBy: grant.grantedBy };
  }

  // The runtime writes the audit record of the decision (including ones nobody awaits, such as restart expiry).
  const options = input.options ?? APPROVAL_OPTIONS;
  const grantCovers: GrantCover | undefined = options.includes('yes_in_session')
    ? { requesterId: input.requesterId, ttlMs: grants.ttlMs, ...(input.routineId === undefined ? {} : { routineId: input.routineId }) }
    : undefined;
  const asked = input.question?.(grantCovers);
  const ask = () => approvals.request({
    worldId: input.worldId,
    chatId: input.chatId,
    requesterId: input.requesterId,
    title: asked?.title ?? (input.subject === 'shell' ? 'Run a shell command?' : `Run code from skill ${visible(input.skill.id)}?`),
    body: asked?.body ?? formatApprovalBody(input.skill, input.items, grantCovers, input.subject),
    options,
    defaultOption: 'no',
    timeoutMs: input.timeoutMs,
    skillId: input.skill.id,
    skillHash: input.skill.hash,
    items: input.items,
    subject: input.subject ?? 'skill',
    ...turn,
    ...(input.resumeKey === undefined ? {} : { resumeKey: input.resumeKey }),
    ...(input.routineId === undefined ? {} : { routineId: input.routineId }),
  });
  let record = await ask();
  // A "yes, once" covers one run: marked in the store before it starts. When a run under it had started already
  // (two runs of one turn raced for a resumed answer), the question is asked again, and the card says why.
  if (record.outcome === 'yes_once' && approvals.isAuthentic(record) && !(await approvals.markRunStarted(record))) {
    record = await ask();
    if (record.outcome === 'yes_once' && approvals.isAuthentic(record) && !(await approvals.markRunStarted(record))) {
      return { allowed: false, outcome: 'expired', approvalId: record.id, decidedBy: SYSTEM_DECIDERS.restart };
    }
  }
  const outcome = record.outcome ?? 'expired';
  const decided = { approvalId: record.id, ...(record.decidedBy === undefined ? {} : { decidedBy: record.decidedBy }) };
  if (outcome !== 'yes_once' && outcome !== 'yes_in_session') return { allowed: false, outcome: outcome === 'no' || outcome === 'timeout' ? outcome : 'expired', ...decided };
  // Only a person's yes, written by the bot, lets code run; a timeout or expiry never does, whatever the default.
  if (!approvals.isAuthentic(record) || record.skillHash !== input.skill.hash) {
    await audit.record({
      at: now(),
      kind: 'integrity',
      worldId: input.worldId,
      chatId: input.chatId,
      skillId: input.skill.id,
      skillHash: input.skill.hash,
      items: input.items,
      requestedBy: input.requesterId,
      ...(record.decidedBy === undefined ? {} : { decidedBy: record.decidedBy }),
      outcome: 'ignored',
      approvalId: record.id,
      reason: `approval record ${record.id} says ${outcome} but fails its integrity check; ignored`,
      ...turn,
    });
    return { allowed: false, outcome: 'expired', approvalId: record.id, decidedBy: SYSTEM_DECIDERS.integrity };
  }
  // A routine runs unattended on its owner's word: only the owner's own "for this routine" outlives the run.
  const grantable = input.routineId === undefined || record.decidedBy === input.requesterId;
  if (outcome === 'yes_in_session' && grantable) await grants.add(key, record.decidedBy ?? record.requesterId);
  return { allowed: true, outcome, skillHash: record.skillHash, ...decided };
}
