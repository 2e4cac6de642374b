// What the person who picked skills on a collection's install card is told (on every platform).
import type { ResponseResult } from '../approvals/index.ts';

/** Shaped as the Installer's InstallResult (not imported: the Installer imports this). */
export function pickAnswer(result: ResponseResult | { kind: 'not_found' }): { ok: boolean; text: string; privately?: boolean } {
  switch (result.kind) {
    case 'accepted':
      return { ok: true, text: '' };
    case 'not_allowed':
      return { ok: false, privately: true, text: "Only the person who asked and this channel's installers can pick what an install card covers." };
    case 'invalid_option':
      return { ok: false, privately: true, text: 'Pick at least one of the skills the card offers.' };
    case 'already_resolved':
      return { ok: false, privately: true, text: 'This install card is already closed, so the pick changed nothing.' };
    default:
      return { ok: false, privately: true, text: 'This install card is no longer open (or not of this channel), so the pick changed nothing.' };
  }
}
