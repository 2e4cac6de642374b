// Building and resolving approval records: pure functions the runtime composes.
import { randomBytes } from 'node:crypto';
import { APPROVAL_OPTIONS, type ApprovalOption, type ApprovalOutcome, type ApprovalRecord, type ApprovalRequestInput } from './types.ts';

/** `decidedBy` of resolutions no person made all start with this. */
export const SYSTEM_DECIDER_PREFIX = 'system:';

export const SYSTEM_DECIDERS = {
  unattended: `${SYSTEM_DECIDER_PREFIX}unattended`,
  timeout: `${SYSTEM_DECIDER_PREFIX}timeout`,
  restart: `${SYSTEM_DECIDER_PREFIX}restart`,
  shutdown: `${SYSTEM_DECIDER_PREFIX}shutdown`,
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
export function newApprovalRecord(input: ApprovalRequestInput, createdAt: number): ApprovalRecord {
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
  };
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
