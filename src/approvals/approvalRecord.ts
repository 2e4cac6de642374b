// Building and resolving approval records: pure functions the runtime composes.
import { randomBytes } from 'node:crypto';
import {
  APPROVAL_OPTIONS,
  type ApprovalItem,
  type ApprovalOption,
  type ApprovalOutcome,
  type ApprovalRecord,
  type ApprovalRequestInput,
} from './types.ts';

/** `decidedBy` of resolutions no person made all start with this. */
export const SYSTEM_DECIDER_PREFIX = 'system:';

export const SYSTEM_DECIDERS = {
  unattended: `${SYSTEM_DECIDER_PREFIX}unattended`,
  timeout: `${SYSTEM_DECIDER_PREFIX}timeout`,
  restart: `${SYSTEM_DECIDER_PREFIX}restart`,
  shutdown: `${SYSTEM_DECIDER_PREFIX}shutdown`,
  /** The skill's files could no longer be hashed (they would make it invalid): nobody was asked. */
  invalid: `${SYSTEM_DECIDER_PREFIX}invalid`,
  /** The record in the store failed its integrity check (not written by the bot): treated as no answer. */
  integrity: `${SYSTEM_DECIDER_PREFIX}integrity`,
  /** Local only: the runtime closed with `handOver`, leaving the stored question pending for another instance. */
  handover: `${SYSTEM_DECIDER_PREFIX}handover`,
  /** Someone picked other choices (ApprovalRuntime.replace): a new question asks for exactly those. */
  replaced: `${SYSTEM_DECIDER_PREFIX}replaced`,
} as const;

/** `slack:T1:C1` → `slack`: the platform whose presenter renders a world's questions. */
export function platformOf(worldId: string): string {
  const colon = worldId.indexOf(':');
  return colon === -1 ? worldId : worldId.slice(0, colon);
}

export function isOption(value: string): value is ApprovalOption {
  return (APPROVAL_OPTIONS as readonly string[]).includes(value);
}

/** 16 URL-safe characters without `:`, so `hitl:<id>:yes_in_session` stays far below Discord's 100. */
function newApprovalId(): string {
  return randomBytes(12).toString('base64url');
}

/** A new pending record. Throws a TypeError when the default is not among the options (a caller's bug). */
export function newApprovalRecord(input: ApprovalRequestInput, createdAt: number, instanceId: string): ApprovalRecord {
  const options = [...(input.options ?? APPROVAL_OPTIONS)];
  const defaultOption = input.defaultOption ?? 'no';
  if (!options.includes(defaultOption)) throw new TypeError(`Default option ${defaultOption} is not among the options.`);
  return {
    id: newApprovalId(),
    status: 'pending',
    worldId: input.worldId,
    chatId: input.chatId,
    requesterId: input.requesterId,
    title: input.title,
    body: input.body,
    options,
    defaultOption,
    skillId: input.skillId,
    skillHash: input.skillHash,
    items: input.items,
    createdAt,
    expiresAt: createdAt + input.timeoutMs,
    ...(input.turnId === undefined ? {} : { turnId: input.turnId }),
    instanceId,
    ...(input.resumeKey === undefined ? {} : { resumeKey: input.resumeKey }),
    ...(input.answerers === undefined ? {} : { answerers: [...input.answerers] }),
    ...(input.picks === undefined ? {} : { picks: { choices: [...input.picks.choices], picked: [...input.picks.picked] } }),
    ...(input.routineId === undefined ? {} : { routineId: input.routineId }),
    ...(input.subject === undefined ? {} : { subject: input.subject }),
  };
}

/** The store key ('approvals' namespace) that maps a resume key to its question's id. Ids never hold `:`. */
export function resumeIndexKey(resumeKey: string): string {
  return `resume:${resumeKey}`;
}

/**
 * The store key ('approvals' namespace) claimed when a run under an approval starts: a "yes, once" covers one run,
 * so a re-run of the turn (after a crash during that run) asks again instead of resuming it.
 */
export function runStartedKey(approvalId: string): string {
  return `started:${approvalId}`;
}

export interface ResumeIndex {
  approvalId: string;
}

/** A stored value that is an approval still waiting for an answer (the namespace also holds resume indexes). */
export function isPendingApproval(value: unknown): value is ApprovalRecord {
  return typeof value === 'object' && value !== null && (value as { status?: unknown }).status === 'pending';
}

function itemsText(items: readonly ApprovalItem[]): string {
  return JSON.stringify(items.map((item) => [item.kind, item.path, item.args]));
}

/**
 * Whether `record` asks exactly what `input` would: only then may a re-run resume it. An approval must cover
 * precisely the code that runs, so any difference (another script, other arguments, an edited skill) asks anew.
 */
export function sameQuestion(record: ApprovalRecord, input: ApprovalRequestInput): boolean {
  return (
    record.worldId === input.worldId &&
    record.chatId === input.chatId &&
    record.requesterId === input.requesterId &&
    record.skillId === input.skillId &&
    record.skillHash === input.skillHash &&
    itemsText(record.items) === itemsText(input.items) &&
    record.options.join(',') === (input.options ?? APPROVAL_OPTIONS).join(',') &&
    record.defaultOption === (input.defaultOption ?? 'no') &&
    JSON.stringify(record.answerers) === JSON.stringify(input.answerers) &&
    JSON.stringify(record.picks) === JSON.stringify(input.picks) &&
    record.routineId === input.routineId
  );
}

/** The record once decided; a system outcome (timeout, expiry) applies the default option. */
export function resolvedRecord(record: ApprovalRecord, outcome: ApprovalOutcome, decidedBy: string, decidedAt: number): ApprovalRecord {
  return {
    ...record,
    status: 'resolved',
    outcome,
    option: isOption(outcome) ? outcome : record.defaultOption,
    decidedBy,
    decidedAt,
  };
}

/** What an approval's MAC covers (see ApprovalRuntime.isAuthentic): who asked what, and how it was decided. */
export function decisionFields(record: ApprovalRecord): Record<string, unknown> {
  const { id, worldId, chatId, requesterId, skillId, skillHash, items, status, outcome, option, decidedBy, decidedAt, repicked } = record;
  return { id, worldId, chatId, requesterId, skillId, skillHash, items, status, outcome, option, decidedBy, decidedAt, ...(repicked === undefined ? {} : { repicked }) };
}

/**
 * What an open question's MAC covers: who asked (and so, with the world's configured approvers, who may answer),
 * where, what runs, and the card people read. Never the fields that change while it is open (its message
 * reference, the instance awaiting it).
 */
export function pendingFields(record: ApprovalRecord): Record<string, unknown> {
  const { id, worldId, chatId, requesterId, skillId, skillHash, items, options, defaultOption, title, body, createdAt, expiresAt, turnId, resumeKey, answerers, picks, routineId, subject } = record;
  return {
    id, worldId, chatId, requesterId, skillId, skillHash, items, options, defaultOption, title, body, createdAt, expiresAt, turnId, resumeKey,
    ...(answerers === undefined ? {} : { answerers }),
    ...(picks === undefined ? {} : { picks }),
    ...(routineId === undefined ? {} : { routineId }),
    ...(subject === undefined ? {} : { subject }),
  };
}
