// One state-key module (src/keys/sealing.ts): records sealed before it existed still verify, every use's seal
// is its own, and what is encrypted reads back only under the same key and use.
import { describe, expect, it } from 'vitest';
import { createRecordSealer } from '../../src/approvals/recordSeal.ts';
import { indexSeal } from '../../src/install/indexSeal.ts';
import { derivedSecret, HOOK_SECRET_LABEL, MCP_TOKENS_LABEL, stateKeyCipher, stateKeySealer } from '../../src/keys/sealing.ts';
import { manifestSeal } from '../../src/workspace/manifestSeal.ts';

const secret = Buffer.from('0123456789abcdef0123456789abcdef', 'utf8');

// Made by the code each use had of its own before the module (HMAC of `label\n…`, HKDF + AES-256-GCM).
const BEFORE = {
  grant: '3a96ebbb059d0e675d527f348b32bfd5be837b41bdebb9dfa7b0261559a86d6d',
  manifest: '8a4897c1f4081eba0f25e64b118b91f4a9cec25c92577d71fa54fd37606f401e',
  index: '2c05747045b4cc0678d38b0552a370fa2aaa097d1b5196c62c80e9c43cf8c694',
  hook: '60b6626e6c0c153b402e3e3b0520822f8f1000034cd5081f217e74f1c42e7c70',
  tokens: { v: 1, iv: 'exWcczWQqS52VJmw', tag: 'M5yqBSZB2FV/77aso3UdFg==', data: '/wdeFQbkftg6bCa+9wLtSxi1nk+A6czykpPcosIhm+3sdvgd+F5q3YdTVoKf7aPuGqWJNA7E' },
};

describe('the state key module', () => {
  it('verifies what was sealed before it: grants, manifests, the install index, hook secrets, MCP tokens', () => {
    expect(createRecordSealer(secret).verify('grant', 'grant-key', { b: [1, undefined], a: 1 }, BEFORE.grant)).toBe(true);
    expect(manifestSeal(secret).verify('slack:T1:C1/1.2', 'manifest body', BEFORE.manifest)).toBe(true);
    expect(indexSeal(secret).verify('rev-7', [{ v: 2, id: 'x' }], BEFORE.index)).toBe(true);
    expect(derivedSecret(secret, HOOK_SECRET_LABEL, 'hook-1')).toBe(BEFORE.hook);
    expect(stateKeyCipher(secret, MCP_TOKENS_LABEL).decrypt(BEFORE.tokens)).toEqual({ tokens: { access_token: 'at', token_type: 'bearer' } });
  });

  it("never takes one use's seal for another's, nor another key's", () => {
    const grant = createRecordSealer(secret).seal('grant', 'k', { a: 1 });
    expect(createRecordSealer(secret).verify('approval', 'k', { a: 1 }, grant)).toBe(false);
    expect(createRecordSealer(secret).verify('grant', 'k', { a: 2 }, grant)).toBe(false);
    expect(createRecordSealer(Buffer.alloc(32, 7)).verify('grant', 'k', { a: 1 }, grant)).toBe(false);
    const manifest = manifestSeal(secret).seal('chat', 'body');
    expect(stateKeySealer(secret).verify('installs-index', ['chat', 'body'], manifest)).toBe(false);
    expect(stateKeySealer(secret).verify('workspace-manifest', ['chat', 'body'], manifest.toUpperCase())).toBe(false);
  });

  it('reads back what it encrypted, and nothing under another key or tampered with', () => {
    const cipher = stateKeyCipher(secret, MCP_TOKENS_LABEL);
    const sealed = cipher.encrypt({ refresh: 'r' });
    expect(JSON.stringify(sealed)).not.toContain('"r"');
    expect(cipher.decrypt(sealed)).toEqual({ refresh: 'r' });
    expect(stateKeyCipher(Buffer.alloc(32, 7), MCP_TOKENS_LABEL).decrypt(sealed)).toBeUndefined();
    expect(cipher.decrypt({ ...sealed, data: Buffer.from('tampered').toString('base64') })).toBeUndefined();
    expect(cipher.decrypt('not a record')).toBeUndefined();
  });

  it('refuses a state key too short to seal with', () => {
    expect(() => stateKeySealer(Buffer.alloc(8))).toThrow('the state key must be at least 16 bytes');
  });
});
