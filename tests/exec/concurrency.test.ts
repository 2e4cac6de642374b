import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { hostPidsWith, makeSkill, type TempSkill, uniqueSleep } from './skillFolder.ts';

// The sandbox sees none of the test's files and no network of the host: each run sleeps for a number of seconds
// unique to it, which the test finds among the host's processes ("started") and kills ("go"), so the test sees
// exactly how many runs are in progress at once.
const gated = `#!/bin/bash
sleep "$GATE_SLEEP"
echo "go $RUN_ID"
`;

interface Gate {
  /** The sleep of run `id`. */
  sleepOf(id: number): string;
  /** Ids of the runs that reached their sleep. */
  waiting: string[];
  most: number;
  /** Looks at the host's processes finished so far (one look can take long on a loaded machine). */
  looks: number;
  release(): void;
  close(): Promise<void>;
}

async function openGate(): Promise<Gate> {
  const base = uniqueSleep();
  const ids = new Map<string, string>();
  let released = false;
  let closed = false;
  const gate: Gate = {
    sleepOf(id) {
      const sleep = `${base}${id}`;
      ids.set(sleep, String(id));
      return sleep;
    },
    waiting: [],
    most: 0,
    looks: 0,
    release() {
      released = true;
    },
    close: async () => {
      closed = true;
      await polling;
    },
  };
  const poll = async (): Promise<void> => {
    while (!closed) {
      let alive = 0;
      for (const [sleep, id] of ids) {
        const pids = await hostPidsWith(sleep);
        if (pids.length === 0) continue;
        alive += 1;
        if (!gate.waiting.includes(id)) gate.waiting.push(id);
        if (released) for (const pid of pids) process.kill(pid, 'SIGKILL');
      }
      if (!released) gate.most = Math.max(gate.most, alive);
      gate.looks += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const polling = poll();
  return gate;
}

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}
/** 500 ms, and two whole looks at the host's processes since, so what is running now has been counted. */
const settle = async (gate: Gate) => {
  await new Promise((resolve) => setTimeout(resolve, 500));
  const from = gate.looks;
  await waitFor(() => gate.looks >= from + 2);
};

describe('the bound on concurrent runs', () => {
  let skill: TempSkill;
  let gate: Gate;
  beforeEach(async () => {
    skill = await makeSkill();
    await skill.write('scripts/gated.sh', gated);
    gate = await openGate();
  });
  afterEach(async () => {
    await gate.close();
    await skill.remove();
  });

  const request = (id: number, chatId?: string) => ({
    skillDir: skill.dir,
    script: 'scripts/gated.sh',
    env: { RUN_ID: String(id), GATE_SLEEP: gate.sleepOf(id) },
    ...(chatId === undefined ? {} : { chatId }),
  });

  it('with maxConcurrent 2, four runs never overlap more than two and all finish', async () => {
    const executor = createExecutor({ timeoutMs: 20_000, maxConcurrent: 2 });
    const runs = [1, 2, 3, 4].map((id) => executor.run(request(id)));

    // Two start (the test would time out if only one could), then the held slots keep the others queued.
    await waitFor(() => gate.waiting.length >= 2);
    await settle(gate);
    expect(gate.waiting).toHaveLength(2);
    gate.release();

    const results = await Promise.all(runs);
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(gate.most).toBe(2);
  });

  it('one chat holds at most maxConcurrentPerChat slots; another chat still gets one', async () => {
    const executor = createExecutor({ timeoutMs: 20_000, maxConcurrent: 4, maxConcurrentPerChat: 2 });
    const busy = [1, 2, 3].map((id) => executor.run(request(id, 'slack:T1:C1/busy')));
    await waitFor(() => gate.waiting.length >= 2);
    const other = executor.run(request(9, 'slack:T1:C1/other'));
    await waitFor(() => gate.waiting.includes('9'));
    await settle(gate);
    // The busy chat's third run waits although two slots are free; the other chat's run got in.
    expect(gate.waiting.sort()).toEqual(['1', '2', '9']);
    gate.release();
    const results = await Promise.all([...busy, other]);
    expect(results.map((result) => result.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
  });

  it('a Stop ends a run still waiting for a slot, and the slot it waited for goes to the next', async () => {
    const executor = createExecutor({ timeoutMs: 20_000, maxConcurrent: 1 });
    const first = executor.run(request(1));
    await waitFor(() => gate.waiting.length >= 1);
    const stop = new AbortController();
    const stopped = executor.run({ ...request(2), signal: stop.signal });
    const third = executor.run(request(3));
    stop.abort();
    expect(await stopped).toMatchObject({ status: 'stopped', stdout: '' });
    gate.release();
    expect((await first).status).toBe('ok');
    expect((await third).status).toBe('ok');
    expect(gate.waiting.sort()).toEqual(['1', '3']);
  });

  it('lets a queued run start as soon as a slot frees', async () => {
    await skill.write('scripts/quick.sh', '#!/bin/bash\necho "$RUN_ID"\n');
    const executor = createExecutor({ timeoutMs: 20_000, maxConcurrent: 1 });
    const results = await Promise.all(
      [1, 2, 3].map((id) => executor.run({ skillDir: skill.dir, script: 'scripts/quick.sh', env: { RUN_ID: String(id) } })),
    );
    expect(results.map((result) => result.stdout)).toEqual(['1\n', '2\n', '3\n']);
  });
});
