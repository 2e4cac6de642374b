// A MAC on the workspace manifests a shared store holds. Whoever can write to the store (a skill that reaches
// Redis, a neighbour on its network) could otherwise make every instance lay out files, folders and links as
// root. The key is the bot's state key (SKILLBOT_STATE_KEY, shared by every instance), passed in at start; the
// label keeps a manifest's MAC from ever validating anything else the key seals.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface ManifestSeal {
  /** HMAC-SHA256 (hex) of a chat's manifest text. */
  seal(chatId: string, body: string): string;
  verify(chatId: string, body: string, mac: unknown): boolean;
}

export function manifestSeal(secret: Buffer): ManifestSeal {
  if (secret.length < 16) throw new RangeError('the state key must be at least 16 bytes');
  const seal = (chatId: string, body: string) => createHmac('sha256', secret).update(`workspace-manifest\n${chatId}\n${body}`).digest('hex');
  return {
    seal,
    verify(chatId, body, mac) {
      if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
      return timingSafeEqual(Buffer.from(seal(chatId, body), 'hex'), Buffer.from(mac, 'hex'));
    },
  };
}
