// Redis with a password over TLS (issue 19): STORE_URL=rediss://USER:PASSWORD@HOST:PORT against a real
// redis-server whose only listener speaks TLS (plain port off), with a throw-away CA made here by openssl.
// Node trusts a private CA only through NODE_EXTRA_CA_CERTS, read when the process starts, so every case that
// must trust it runs in a child process with the environment an operator would set: the real CLI where a
// command fits, else a few lines on createStore.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/createStore.ts';
import { freePort } from '../fakes/freePort.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'skillbot.mjs');
const PASSWORD = 'tls-requirepass-7d1e';
// '@', '/' and ':' as operators' generated passwords have them: percent-encoded in STORE_URL.
const USER_PASSWORD = 'tls/acl@user:b42a';
const USER_PASSWORD_IN_URL = encodeURIComponent(USER_PASSWORD);

const missing = (
  [
    ['redis-server', '--version'],
    ['openssl', 'version'],
  ] as const
).flatMap(([tool, flag]) => (spawnSync(tool, [flag], { stdio: 'ignore' }).error === undefined ? [] : [tool]));
if (process.env.CI === 'true' && missing.length > 0) {
  throw new Error(`CI=true needs ${missing.join(' and ')} on PATH: the Redis TLS tests must run, not skip (Debian: apt-get install redis-server openssl).`);
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs node with exactly `env` (plus PATH), in `cwd`, never longer than 20 s. */
function node(args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, cwd, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A CA, and a certificate it signs for 127.0.0.1 and localhost (EC keys: quick to make). */
async function makeCertificates(dir: string): Promise<void> {
  const openssl = (...args: string[]) => promisify(execFile)('openssl', args, { cwd: dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=skillbot test CA');
  await openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  await writeFile(path.join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.cnf');
}

/** TLS only (`--port 0` turns the plain port off), a password for the default user and an ACL user `skillbot`. */
async function startRedis(dir: string, tlsPort: number): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    [
      ...['--port', '0', '--bind', '127.0.0.1', '--tls-port', String(tlsPort)],
      ...['--tls-cert-file', 'server.pem', '--tls-key-file', 'server.key', '--tls-ca-cert-file', 'ca.pem', '--tls-auth-clients', 'no'],
      ...['--requirepass', PASSWORD, '--user', 'skillbot', 'on', `>${USER_PASSWORD}`, '~*', '&*', '+@all'],
      ...['--save', '', '--appendonly', 'no', '--dir', dir],
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let said = '';
  await new Promise<void>((resolve, reject) => {
    const onOutput = (chunk: Buffer) => {
      said += chunk.toString();
      if (/Ready to accept connections/.test(said)) resolve();
    };
    server.stdout?.on('data', onOutput);
    server.stderr?.on('data', onOutput);
    // A redis-server built without TLS refuses --tls-port: its own words say so.
    server.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${said.slice(-2000)}`)));
    setTimeout(() => reject(new Error(`redis-server was not ready within 5 s:\n${said.slice(-2000)}`)), 5_000).unref();
  });
  return server;
}

describe.skipIf(missing.length > 0)('redis over TLS with a password (rediss://)', () => {
  let dir: string;
  let server: ChildProcess | undefined;
  let port: number;
  let trusted: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'skillbot-redis-tls-'));
    await makeCertificates(dir);
    port = await freePort();
    server = await startRedis(dir, port);
    trusted = { NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.pem'), LOG_LEVEL: 'silent' };
  });
  afterAll(async () => {
    server?.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stores and reads back through a password (requirepass) and through an ACL user, with the CA trusted by NODE_EXTRA_CA_CERTS', async () => {
    // Each URL: one store writes and closes, a second (a new connection) reads.
    const script = `
      const { createStore } = await import(${JSON.stringify(path.join(ROOT, 'src', 'store', 'createStore.ts'))});
      for (const [n, url] of process.argv.slice(1).entries()) {
        const writer = await createStore(url, { connectTimeoutMs: 3000 });
        await writer.set('grants', 'tls-check-' + n, { n, over: 'tls' }, 60000);
        await writer.close();
        const reader = await createStore(url, { connectTimeoutMs: 3000 });
        console.log(JSON.stringify(await reader.get('grants', 'tls-check-' + n)));
        await reader.close();
      }`;
    const run = await node(
      ['--import', 'tsx', '--input-type=module', '-e', script, `rediss://:${PASSWORD}@127.0.0.1:${port}`, `rediss://skillbot:${USER_PASSWORD_IN_URL}@127.0.0.1:${port}/1`],
      trusted,
      ROOT,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(['{"n":0,"over":"tls"}', '{"n":1,"over":"tls"}']);
  });

  it('the real CLI works over it, and with a wrong password says so in one line naming STORE_URL, never the password', async () => {
    const url = (password: string) => `rediss://skillbot:${password}@127.0.0.1:${port}`;
    const [good, wrong, doctor] = await Promise.all([
      node([BIN, 'audit'], { ...trusted, STORE_URL: url(USER_PASSWORD_IN_URL) }, dir),
      node([BIN, 'audit'], { ...trusted, STORE_URL: url('not-the-password') }, dir),
      node([BIN, 'doctor'], { ...trusted, STORE_URL: url('not-the-password') }, dir),
    ]);
    expect(good.stdout.trim()).toBe('No audit records.');
    expect(good.code).toBe(0);

    // The server's refusal itself, so at once: after the 5 s connect timeout it would read "no answer within …".
    expect(wrong.stderr).toMatch(/^skillbot: cannot reach redis at 127\.0\.0\.1:\d+ \(STORE_URL\): WRONGPASS .*the password goes in STORE_URL/);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1); // no stack trace
    expect(wrong.stderr + wrong.stdout).not.toContain('not-the-password');
    expect(wrong.code).toBe(1);

    const line = doctor.stdout.split('\n').find((text) => text.includes(' store: ')) ?? '';
    expect(line).toMatch(/^FAIL {2}store: STORE_URL rediss:\/\/\*\*\*@127\.0\.0\.1:\d+ cannot be opened \(.*WRONGPASS/);
    expect(doctor.stdout + doctor.stderr).not.toContain('not-the-password');
  });

  it('a certificate this process does not trust stops the start at once, naming the certificate and NODE_EXTRA_CA_CERTS', async () => {
    // As above: the certificate's refusal is the message, not "no answer within …" after the timeout.
    const run = await node([BIN, 'audit'], { LOG_LEVEL: 'silent', STORE_URL: `rediss://:${PASSWORD}@127.0.0.1:${port}` }, dir);
    expect(run.stderr).toMatch(/^skillbot: cannot reach redis at 127\.0\.0\.1:\d+ \(STORE_URL\): (self-signed certificate|unable to (verify|get)).* \(.*TLS certificate.*NODE_EXTRA_CA_CERTS=/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).not.toContain(PASSWORD);
    expect(run.code).toBe(1);
  });

  it('plain redis:// to the TLS port fails within the connect timeout and suggests rediss://', async () => {
    // This process does not trust the CA, but a plain connection never gets as far as a certificate.
    const attempt = createStore(`redis://:${PASSWORD}@127.0.0.1:${port}`, { connectTimeoutMs: 500 });
    await expect(attempt).rejects.toThrow(/\(STORE_URL\): no answer within 500 ms .*use rediss:\/\//);
    await expect(attempt).rejects.not.toThrow(PASSWORD);
  });
});
