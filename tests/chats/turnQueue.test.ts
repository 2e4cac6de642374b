import { describe, expect, it } from 'vitest';
import { LocalTurnQueue, TurnQueue } from '../../src/chats/turnQueue.ts';

/** A promise the test settles by hand, so order is decided by the test, not by timers. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('per-chat turn queue', () => {
  it('answers messages that arrive during a turn after it, one at a time, in order', async () => {
    const queue = new LocalTurnQueue();
    const events: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const first = gate();
    const job = (name: string, wait?: Promise<void>) => async () => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      events.push(`${name} start`);
      await wait;
      await Promise.resolve();
      events.push(`${name} end`);
      running--;
      return `answer to ${name}`;
    };
    const answers = [queue.enqueue('chat-a', job('m1', first.opened))];
    await Promise.resolve();
    for (const name of ['m2', 'm3', 'm4']) answers.push(queue.enqueue('chat-a', job(name)));
    expect(queue.size).toBe(4);
    expect(queue.activeChats).toBe(1);
    first.open();
    expect(await Promise.all(answers)).toEqual(['answer to m1', 'answer to m2', 'answer to m3', 'answer to m4']);
    expect(events).toEqual(['m1 start', 'm1 end', 'm2 start', 'm2 end', 'm3 start', 'm3 end', 'm4 start', 'm4 end']);
    expect(mostAtOnce).toBe(1);
  });

  it('runs different chats at the same time', { timeout: 5_000 }, async () => {
    const queue = new TurnQueue();
    const events: string[] = [];
    const aMayFinish = gate();
    // A's turn cannot end until B's has started: were chats serialised, this would never settle.
    const a = queue.enqueue('chat-a', async () => {
      events.push('a start');
      await aMayFinish.opened;
      events.push('a end');
    });
    const b = queue.enqueue('chat-b', async () => {
      events.push('b start');
      aMayFinish.open();
      events.push('b end');
    });
    await Promise.all([a, b]);
    expect(events.indexOf('b start')).toBeLessThan(events.indexOf('a end'));
    expect(events[0]).toBe('a start');
  });

  it('goes on after a job that rejects or throws; the caller gets the error', async () => {
    const queue = new LocalTurnQueue();
    const order: string[] = [];
    const failing = queue.enqueue('chat-a', async () => {
      order.push('failing');
      throw new Error('model unreachable');
    });
    const throwing = queue.enqueue('chat-a', () => {
      order.push('throwing');
      throw new Error('thrown before any await');
    });
    const fine = queue.enqueue('chat-a', async () => {
      order.push('fine');
      return 'ok';
    });
    await Promise.all([
      expect(failing).rejects.toThrow('model unreachable'),
      expect(throwing).rejects.toThrow('thrown before any await'),
      expect(fine).resolves.toBe('ok'),
    ]);
    expect(order).toEqual(['failing', 'throwing', 'fine']);
    await queue.idle();
    expect(queue.size).toBe(0);
  });

  it('forgets a chat once its queue drains, so many chats leave nothing behind', async () => {
    const queue = new LocalTurnQueue();
    const release = gate();
    const jobs = Array.from({ length: 2_000 }, async (_unused, index) =>
      queue.enqueue(`chat-${index % 1_000}`, async () => {
        await release.opened;
        return index;
      }),
    );
    expect(queue.activeChats).toBe(1_000);
    expect(queue.size).toBe(2_000);
    let idle = false;
    const idled = queue.idle().then(() => {
      idle = true;
    });
    await Promise.resolve();
    expect(idle).toBe(false);
    release.open();
    await idled;
    expect(await Promise.all(jobs)).toHaveLength(2_000);
    expect(queue.activeChats).toBe(0);
    expect(queue.size).toBe(0);
    await queue.idle();
  });
});
