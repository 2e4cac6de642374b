// The one file that gives sandboxes their uids (issue 37 item 5): slots, chats and services each in a range of
// their own above the base, stable for a key, and none at all when the bot is not root.
import { describe, expect, it } from 'vitest';
import { sandboxIds } from '../../src/exec/sandboxIds.ts';

describe('sandbox uids', () => {
  const ids = sandboxIds(100_000, { root: true, sandboxed: true });

  it('put slots, chats and services in ranges that never meet', () => {
    const slots = [0, 1, 3, 63].map((slot) => ids.run(slot)?.uid ?? NaN);
    const chats = Array.from({ length: 500 }, (_, index) => ids.run(0, `slack:T1:C${index}/1.${index}`)?.uid ?? NaN);
    const services = Array.from({ length: 500 }, (_, index) => ids.service(`mcp:server${index}:slack:T1:C1`)?.uid ?? NaN);
    expect(Math.max(...slots)).toBeLessThan(Math.min(...chats));
    expect(Math.max(...chats)).toBeLessThan(Math.min(...services));
    expect(Math.min(...slots)).toBe(100_000);
    expect(Math.max(...services)).toBeLessThan(100_000 + 64_000);
  });

  it('give one chat or service the same uid every time, and a chat its workspace owner', () => {
    expect(ids.run(2, 'slack:T1:C1/1.1')).toEqual(ids.run(0, 'slack:T1:C1/1.1'));
    expect(ids.workspaceOwner('slack:T1:C1/1.1')).toEqual(ids.run(1, 'slack:T1:C1/1.1'));
    expect(ids.service('mcp:gh:slack:T1:C1')).toEqual(ids.service('mcp:gh:slack:T1:C1'));
    expect(ids.service('mcp:gh:slack:T1:C1')).not.toEqual(ids.service('mcp:gh:slack:T1:C2'));
  });

  it('give no uid when the bot is not root, and no workspace owner when runs are not sandboxed', () => {
    const user = sandboxIds(100_000, { root: false, sandboxed: true });
    expect([user.run(0), user.run(0, 'c'), user.service('s'), user.workspaceOwner('c')]).toEqual([undefined, undefined, undefined, undefined]);
    expect(sandboxIds(100_000, { root: true, sandboxed: false }).workspaceOwner('c')).toBeUndefined();
  });
});
