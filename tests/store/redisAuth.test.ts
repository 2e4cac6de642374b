// Redis with a password (issue 19): a store the sandbox cannot write without the credentials, which live in
// STORE_URL only. Runs against a redis-server this test starts on a spare loopback port with requirepass.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/createStore.ts';
import { freePort } from '../fakes/freePort.ts';

const PASSWORD = 'a-long-redis-password-9f3c';

describe('redis with a password', () => {
  let server: ChildProcess;
  let port: number;
  let dir: string;
  beforeAll(async () => {
    port = await freePort();
    dir = await mkdtemp(path.join(os.tmpdir(), 'skillbot-redis-auth-'));
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--requirepass', PASSWORD, '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      server.stdout?.on('data', (chunk: Buffer) => {
        if (/Ready to accept connections/.test(chunk.toString())) resolve();
      });
      server.once('exit', (code) => reject(new Error(`redis-server exited (${code})`)));
    });
  });
  afterAll(async () => {
    server?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('works with the password in STORE_URL (redis://:PASSWORD@HOST:PORT/DB)', async () => {
    const store = await createStore(`redis://:${PASSWORD}@127.0.0.1:${port}/2`, { connectTimeoutMs: 2000 });
    try {
      await store.set('grants', 'k1', { hello: 'world' }, 60_000);
      expect(await store.get('grants', 'k1')).toEqual({ hello: 'world' });
      expect(await store.ping()).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('refuses to start without it, or with a wrong one, and never repeats the password given', async () => {
    await expect(createStore(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 2000 })).rejects.toThrow(/cannot reach redis at 127\.0\.0\.1:\d+ \(STORE_URL\): NOAUTH.*the password goes in STORE_URL/);
    const wrong = createStore(`redis://:not-the-password@127.0.0.1:${port}`, { connectTimeoutMs: 2000 });
    await expect(wrong).rejects.toThrow(/\(STORE_URL\): WRONGPASS .*the password goes in STORE_URL/);
    await expect(wrong).rejects.not.toThrow(/not-the-password/);
  });
});
