// Everything sealed with the state key (stateKey.ts), in one place: HMAC-SHA256 seals that prove the bot wrote a
// record, secrets derived per use, and AES-256-GCM for what must not be read from a copy of the store. Each use
// has a label of its own, so what one use seals never validates (or decrypts) as another. The labels are the
// strings records were sealed with from the start: changing one makes every stored record of that use invalid.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** The labels of HMAC seals: `label\npart\npart…` is what is sealed. */
export const SEAL_LABELS = {
  /** A session grant (src/approvals/grants.ts). */
  grant: 'grant',
  /** An approval's decision (src/approvals/approvals.ts). */
  approval: 'approval',
  /** An open question: who asked, where, what runs. */
  pending: 'pending',
  /** A chat's workspace manifest in a shared store (src/workspace/workspaceSync.ts). */
  workspaceManifest: 'workspace-manifest',
  /** The installed-skills index (src/install/installRecords.ts). */
  installsIndex: 'installs-index',
} as const;
export type SealLabel = (typeof SEAL_LABELS)[keyof typeof SEAL_LABELS];

/** A webhook's signing secret (src/routines/hooks.ts): HMAC of `skillbot-hook:<id>`. */
export const HOOK_SECRET_LABEL = 'skillbot-hook';

/** The HKDF info of the AES key of MCP sign-in tokens (src/mcp/tokenVault.ts). */
export const MCP_TOKENS_LABEL = 'skillbot mcp oauth tokens';

/** The HKDF info of the AES key of the values a person gave a server's question (src/mcp/questions). */
export const MCP_ANSWERS_LABEL = 'skillbot mcp question answers';

const MIN_SECRET_BYTES = 16;

function checked(secret: Buffer): Buffer {
  if (secret.length < MIN_SECRET_BYTES) throw new RangeError(`the state key must be at least ${MIN_SECRET_BYTES} bytes`);
  return secret;
}

/** JSON with object keys sorted at every level (and undefined dropped), so a seal survives a store round trip. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface Sealer {
  /** HMAC-SHA256 (hex) of `label\n` and the parts joined by newlines. */
  seal(label: SealLabel, ...parts: string[]): string;
  /** Whether `mac` is that seal (constant time); anything not a 64-hex-digit string is not. */
  verify(label: SealLabel, parts: readonly string[], mac: unknown): boolean;
}

export function stateKeySealer(secret: Buffer): Sealer {
  const key = checked(secret);
  const seal = (label: SealLabel, ...parts: string[]): string => createHmac('sha256', key).update([label, ...parts].join('\n')).digest('hex');
  return {
    seal,
    verify(label, parts, mac) {
      if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
      return timingSafeEqual(Buffer.from(seal(label, ...parts), 'hex'), Buffer.from(mac, 'hex'));
    },
  };
}

/** A secret of its own for one thing of one use (hex HMAC-SHA256 of `label:id`): a webhook's signing secret. */
export function derivedSecret(secret: Buffer, label: typeof HOOK_SECRET_LABEL, id: string): string {
  return createHmac('sha256', secret).update(`${label}:${id}`).digest('hex');
}

const encryptedSchema = z.object({ v: z.literal(1), iv: z.string(), tag: z.string(), data: z.string() });
export type Encrypted = z.infer<typeof encryptedSchema>;

export interface Cipher {
  encrypt(value: unknown): Encrypted;
  /** Undefined for what is no such record, another key's, or tampered with. */
  decrypt<T>(raw: unknown): T | undefined;
}

/** AES-256-GCM of JSON values, under a key derived from the state key (HKDF-SHA256, the use's label as info). */
export function stateKeyCipher(secret: Buffer, label: typeof MCP_TOKENS_LABEL | typeof MCP_ANSWERS_LABEL): Cipher {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), label, 32));
  return {
    encrypt(value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return { v: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
    },
    decrypt<T>(raw: unknown): T | undefined {
      const parsed = encryptedSchema.safeParse(raw);
      if (!parsed.success) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parsed.data.iv, 'base64'));
        decipher.setAuthTag(Buffer.from(parsed.data.tag, 'base64'));
        return JSON.parse(Buffer.concat([decipher.update(Buffer.from(parsed.data.data, 'base64')), decipher.final()]).toString('utf8')) as T;
      } catch {
        return undefined;
      }
    },
  };
}
