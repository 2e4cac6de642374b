// A MAC on the workspace manifests a shared store holds. Whoever can write to the store (a skill that reaches
// Redis, a neighbour on its network) could otherwise make every instance lay out files, folders and links as
// root. The key is the bot's state key (SKILLBOT_STATE_KEY, shared by every instance), passed in at start; the
// label keeps a manifest's MAC from ever validating anything else the key seals.
import { SEAL_LABELS, stateKeySealer } from '../keys/sealing.ts';

export interface ManifestSeal {
  /** HMAC-SHA256 (hex) of a chat's manifest text. */
  seal(chatId: string, body: string): string;
  verify(chatId: string, body: string, mac: unknown): boolean;
}

export function manifestSeal(secret: Buffer): ManifestSeal {
  const sealer = stateKeySealer(secret);
  return {
    seal: (chatId, body) => sealer.seal(SEAL_LABELS.workspaceManifest, chatId, body),
    verify: (chatId, body, mac) => sealer.verify(SEAL_LABELS.workspaceManifest, [chatId, body], mac),
  };
}
