// The decision itself: may this person use the bot in this world (per `access`), given what the platform says.
import type { AccessSettings } from '../config/accessSettings.ts';
import type { Membership } from './membership.ts';

export type RefusalReason = 'dms' | 'not_listed' | 'guest' | 'external' | 'unknown';

export type AccessDecision = { allowed: true } | { allowed: false; reason: RefusalReason };

/** Whether deciding needs the platform's facts at all (the default settings never ask it). */
export function needsFacts(access: AccessSettings, userId: string): boolean {
  if (access.users.includes(userId)) return false;
  return access.groups.length > 0 || access.guests === 'deny' || access.external === 'deny';
}

/**
 * A person named in `users` is let in (an operator chose them, guest or not); anyone else must be in a listed
 * group when `users` or `groups` lists anyone, and pass the guest and external rules. `dms: deny` holds for all.
 */
export function decide(access: AccessSettings, userId: string, direct: boolean, facts: Membership | undefined): AccessDecision {
  if (direct && access.dms === 'deny') return { allowed: false, reason: 'dms' };
  if (access.users.includes(userId)) return { allowed: true };
  if (!needsFacts(access, userId)) {
    return access.users.length > 0 ? { allowed: false, reason: 'not_listed' } : { allowed: true };
  }
  if (facts === undefined) return { allowed: false, reason: 'unknown' };
  const listed = access.users.length > 0 || access.groups.length > 0;
  if (listed && !facts.groups.some((group) => access.groups.includes(group))) return { allowed: false, reason: 'not_listed' };
  if (facts.guest && access.guests === 'deny') return { allowed: false, reason: 'guest' };
  if (facts.external && access.external === 'deny') return { allowed: false, reason: 'external' };
  return { allowed: true };
}

const WHY: Record<RefusalReason, string> = {
  dms: 'I do not answer direct messages in this workspace',
  not_listed: 'this channel lets only some people use me',
  guest: 'guests cannot use me here',
  external: 'members of other organisations cannot use me here',
  unknown: 'I could not check who may use me here just now',
};

/** The private note a refused person reads: why, and whom to ask (`<@id>` is a mention on Slack and Discord alike). */
export function refusalNote(reason: RefusalReason, askWhom: readonly string[]): string {
  const ask = askWhom.length > 0 ? ` Ask ${askWhom.map((id) => `<@${id}>`).join(', ')} if you need access.` : ' Ask the person who runs this bot if you need access.';
  return `You cannot use skillbot here: ${WHY[reason]}. Nothing of your message was kept.${ask}`;
}
