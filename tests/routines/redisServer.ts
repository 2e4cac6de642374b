// A Redis server of a test's own (on a free port): killing bot processes or restarting them disturbs no other test.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../fakes/freePort.ts';

export interface OwnRedis {
  url: string;
  stop(): void;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = net.connect(port, '127.0.0.1', () => resolve(probe.end() !== undefined));
      probe.on('error', () => resolve(false));
    });
    if (up) break;
    await delay(50);
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => void child.kill('SIGKILL') };
}
