// Approvals: a question with fixed options put to people in a world before skill code runs.

export const APPROVAL_OPTIONS = ['yes_once', 'yes_in_session', 'no'] as const;
export type ApprovalOption = (typeof APPROVAL_OPTIONS)[number];

/** How a request ended. `expired`: it was pending when its process went away (restart) or its record aged out. */
export type ApprovalOutcome = ApprovalOption | 'timeout' | 'expired';

export type ApprovalStatus = 'pending' | 'resolved';

/**
 * What a question is about, so a platform words its card without reading the hash: a skill's code, a shell
 * command, an MCP tool call, joining an MCP sign-in to a person, or installing skills.
 */
export type ApprovalSubject = 'skill' | 'shell' | 'mcp_tool' | 'mcp_sign_in' | 'install';

/**
 * One unit of code the question covers (a script with its args, a preflight command, a hook, a shell command line
 * as `path`), or a file handed to it (`file`: path = where it is in the sandbox, args = [its size, where it came
 * from, and for a file Claude wrote, its whole text]), or an MCP tool call (`tool`: path = its full name
 * `mcp__<server>__<tool>`, args = [its arguments as JSON, whole]).
 */
export interface ApprovalItem {
  kind: 'script' | 'preflight' | 'hook' | 'file' | 'command' | 'tool';
  path: string;
  args: string[];
}

export interface ApprovalRequestInput {
  worldId: string;
  chatId: string;
  /** Platform user id of the person whose message started the turn. */
  requesterId: string;
  title: string;
  /** Plain text: what will run (skill, each item with args, short content hash). */
  body: string;
  options?: readonly ApprovalOption[];
  defaultOption?: ApprovalOption;
  timeoutMs: number;
  /** For grants and audit. */
  skillId: string;
  skillHash: string;
  items: ApprovalItem[];
  turnId?: string;
  /**
   * Names this question so a re-run of the same turn (on any instance, after a crash or a hand over) awaits the
   * question already shown instead of asking again: the person's click on the original message still counts.
   * It must identify one question of one turn (e.g. `<chatId>/<inbound message id>/<n-th approval>`). Only a
   * pending or resolved question asking exactly the same (world, chat, requester, skill, hash, items, options)
   * is resumed; anything else is asked anew.
   */
  resumeKey?: string;
  /**
   * When set, exactly these people may answer (the requester only if listed): an install's review card, which
   * only the world's installers decide. Unset: the requester and the world's approvers.
   */
  answerers?: string[];
  /**
   * A question that covers some of several things (an install card of a collection): every choice, and the ones it
   * covers. People may pick others (ApprovalRuntime.replace); the asker then asks anew for exactly those.
   */
  picks?: ApprovalPicks;
  /**
   * A routine's run (src/routines): its `yes_in_session` is "Yes, for this routine", a grant for every run of
   * that routine, not for the run's thread.
   */
  routineId?: string;
  /** What is asked about (sealed with the question); records from before it was kept have none. */
  subject?: ApprovalSubject;
}

export interface ApprovalPicks {
  choices: string[];
  picked: string[];
}

/** The record kept in the store ('approvals' namespace) and shown to adapters. */
export interface ApprovalRecord {
  id: string;
  status: ApprovalStatus;
  worldId: string;
  chatId: string;
  requesterId: string;
  title: string;
  body: string;
  options: ApprovalOption[];
  defaultOption: ApprovalOption;
  skillId: string;
  skillHash: string;
  items: ApprovalItem[];
  createdAt: number;
  expiresAt: number;
  /** Set by the adapter that rendered it (e.g. Slack channel+ts, Discord message id), so any instance can update it. */
  platformRef?: string;
  outcome?: ApprovalOutcome;
  /** The option that applies once resolved: the one chosen, or the default on timeout, expiry or when nobody could be asked. */
  option?: ApprovalOption;
  decidedBy?: string;
  decidedAt?: number;
  /**
   * The instance that resolved it (took the response, ran the timer or the sweep), which marks its message. Not
   * sealed: it only tells the asking instance whose death to look for before marking the message itself.
   */
  decidedOn?: string;
  turnId?: string;
  /** The instance awaiting the answer (the asker, or whoever resumed it); absent on records from before instance ids. */
  instanceId?: string;
  resumeKey?: string;
  /** When its message went out; a question never shown is asked anew rather than resumed. */
  presentedAt?: number;
  /** Set once resolved: HMAC of the decision under the state key (see ApprovalRuntime.isAuthentic). */
  mac?: string;
  /**
   * Set when asked: HMAC of who asked, where, and what runs (approvalRecord.ts pendingFields) under the state key,
   * so a record changed in the store while open (another requester, who then may answer; other items) is refused.
   */
  pendingMac?: string;
  /** See ApprovalRequestInput.answerers (sealed with the question). */
  answerers?: string[];
  /** See ApprovalRequestInput.picks (sealed with the question). */
  picks?: ApprovalPicks;
  /** See ApprovalRequestInput.routineId (sealed with the question). */
  routineId?: string;
  /** See ApprovalRequestInput.subject (sealed with the question). */
  subject?: ApprovalSubject;
  /** Set when replaced by a pick (decidedBy `system:replaced`): who picked what (sealed with the decision). */
  repicked?: { by: string; picked: string[] };
}

/** What a click (or typed answer) produced; adapters turn it into a platform reply. */
export type ResponseResult =
  | { kind: 'accepted'; record: ApprovalRecord }
  | { kind: 'not_found' }
  | { kind: 'wrong_world'; record: ApprovalRecord }
  | { kind: 'not_allowed'; record: ApprovalRecord }
  | { kind: 'already_resolved'; record: ApprovalRecord }
  | { kind: 'invalid_option' };

export interface ApprovalResponseInput {
  worldId: string;
  approvalId: string;
  option: string;
  userId: string;
}

/** An adapter that can put a question to people in its worlds. */
export interface ApprovalPresenter {
  /** Render the question; may return a platform reference stored on the record. */
  present(record: ApprovalRecord): Promise<string | undefined>;
  /** Update the rendered question once resolved (buttons gone, outcome and who decided shown). */
  resolved(record: ApprovalRecord): Promise<void>;
  /** Tell one user something privately (a stranger's click). */
  tellPrivately(record: ApprovalRecord, userId: string, text: string): Promise<void>;
}
