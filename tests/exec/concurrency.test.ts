import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/exec/executor.ts';
import { makeSkill, type TempSkill } from './skillFolder.ts';

// The sandbox sees none of the test's files: each run (given the network) says "start ID" to the test's loopback
// server and waits for its "go", so the server sees exactly how many runs are in progress at once.
const gated = `#!/bin/bash
exec 3<>"/dev/tcp/127.0.0.1/$GATE_PORT"
echo "start $RUN_ID" >&3
read -r reply <&3
echo "$reply $RUN_ID"
`;

interface Gate {
  port: number;
  /** Ids of the runs waiting for their go. */
  waiting: string[];
  most: number;
  release(): void;
  close(): Promise<void>;
}

async function openGate(): Promise<Gate> {
  const held: net.Socket[] = [];
  let released = false;
  const gate = {
    port: 0,
    waiting: [] as string[],
    most: 0,
    release() {
      released = true;
      for (const socket of held.splice(0)) socket.end('go\n');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = net.createServer((socket) => {
    socket.once('data', (data) => {
      gate.waiting.push(data.toString().trim().replace(/^start /, ''));
      if (released) socket.end('go\n');
      else held.push(socket);
      gate.most = Math.max(gate.most, held.length);
    });
    socket.once('close', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gate.port = (server.address() as net.AddressInfo).port;
  return gate;
}

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

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
    network: true,
    env: { RUN_ID: String(id), GATE_PORT: String(gate.port) },
    ...(chatId === undefined ? {} : { chatId }),
  });

  it('with maxConcurrent 2, four runs never overlap more than two and all finish', async () => {
    const executor = createExecutor({ timeoutMs: 20_000, maxConcurrent: 2 });
    const runs = [1, 2, 3, 4].map((id) => executor.run(request(id)));

    // Two start (the test would time out if only one could), then the held slots keep the others queued.
    await waitFor(() => gate.waiting.length >= 2);
    await settle();
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
    await settle();
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
