// A MAC on the installed-skills index. Every instance writes the folders the index names, and the registry
// serves them: whoever can write to the store (a skill that reaches Redis, a neighbour on its network) could
// otherwise add a skill to every world with no card. The key is the bot's state key, the label keeps this MAC
// from validating anything else the key seals, and the revision is under the MAC, so an index cannot be
// passed off under another revision.
import { canonicalJson, SEAL_LABELS, stateKeySealer } from '../keys/sealing.ts';

export interface IndexSeal {
  /** HMAC-SHA256 (hex) of the revision and the skills. */
  seal(revision: string, skills: unknown): string;
  verify(revision: string, skills: unknown, mac: unknown): boolean;
}

export function indexSeal(secret: Buffer): IndexSeal {
  const sealer = stateKeySealer(secret);
  return {
    seal: (revision, skills) => sealer.seal(SEAL_LABELS.installsIndex, revision, canonicalJson(skills)),
    verify: (revision, skills, mac) => sealer.verify(SEAL_LABELS.installsIndex, [revision, canonicalJson(skills)], mac),
  };
}
