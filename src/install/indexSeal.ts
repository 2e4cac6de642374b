// A MAC on the installed-skills index. Every instance writes the folders the index names, and the registry
// serves them: whoever can write to the store (a skill that reaches Redis, a neighbour on its network) could
// otherwise add a skill to every world with no card. The key is the bot's state key, the label keeps this MAC
// from validating anything else the key seals, and the revision is under the MAC, so an index cannot be
// passed off under another revision.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../approvals/index.ts';

export interface IndexSeal {
  /** HMAC-SHA256 (hex) of the revision and the skills. */
  seal(revision: string, skills: unknown): string;
  verify(revision: string, skills: unknown, mac: unknown): boolean;
}

export function indexSeal(secret: Buffer): IndexSeal {
  if (secret.length < 16) throw new RangeError('the state key must be at least 16 bytes');
  const seal = (revision: string, skills: unknown) => createHmac('sha256', secret).update(`installs-index\n${revision}\n${canonicalJson(skills)}`).digest('hex');
  return {
    seal,
    verify(revision, skills, mac) {
      if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
      return timingSafeEqual(Buffer.from(seal(revision, skills), 'hex'), Buffer.from(mac, 'hex'));
    },
  };
}
