// A stand-in for the internet: a network namespace the test makes itself (ip netns + a veth pair), holding an
// HTTP and an HTTPS server. Only loopback and such namespaces are ever the target of a test's traffic here.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface TestNetns {
  /** The server's address inside the namespace. */
  address: string;
  /** The host's end of the veth pair (one of the host's own addresses now). */
  hostAddress: string;
  /** The /30 both are in (to allow in the executor's egressAllow). */
  subnet: string;
  httpPort: number;
  httpsPort: number;
  /** A server that answers every request `HTTP/1.1 000 Zero` (no status a response may carry: issue 27, F2). */
  zeroStatusPort: number;
  /** The HTTPS server's self-signed certificate (PEM), for a script to trust. */
  cert: string;
  close(): Promise<void>;
}

const SERVER = `
const http = require('node:http');
const https = require('node:https');
const fs = require('node:fs');
const [dir, address] = process.argv.slice(2);
// /echo answers the request's headers as JSON (what a credential-injecting proxy sent), anything else a greeting.
const answer = (scheme) => (req, res) => res.end(req.url.startsWith('/echo') ? JSON.stringify(req.headers) + '\\n' : 'hello from the test namespace over ' + scheme + ' ' + req.url + '\\n');
const net = require('node:net');
const tls = { key: fs.readFileSync(dir + '/key.pem'), cert: fs.readFileSync(dir + '/cert.pem') };
let up = 0;
const ready = () => { up += 1; if (up === 3) process.stdout.write('ready\\n'); };
http.createServer(answer('http')).listen(8080, address, ready);
https.createServer(tls, answer('https')).listen(8443, address, ready);
net.createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 000 Zero\\r\\ncontent-length: 2\\r\\n\\r\\nok'))).listen(8000, address, ready);
`;

export async function openTestNetns(): Promise<TestNetns> {
  const id = `${process.pid % 1000}${Math.floor(Math.random() * 1000)}`;
  const name = `sbxt${id}`;
  const octet = 1 + Math.floor(Math.random() * 250);
  const third = 1 + Math.floor(Math.random() * 250);
  const prefix = `10.${200 + (process.pid % 50)}.${third}`;
  const hostAddress = `${prefix}.${(octet & ~3) + 1}`;
  const address = `${prefix}.${(octet & ~3) + 2}`;
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'skillbot-netns-'));
  let server: ChildProcess | undefined;
  ip('netns', 'add', name);
  try {
    ip('link', 'add', `${name}h`, 'type', 'veth', 'peer', 'name', `${name}n`);
    ip('link', 'set', `${name}n`, 'netns', name);
    ip('addr', 'add', `${hostAddress}/30`, 'dev', `${name}h`);
    ip('link', 'set', `${name}h`, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `${address}/30`, 'dev', `${name}n`);
    ip('netns', 'exec', name, 'ip', 'link', 'set', `${name}n`, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=files.example.test',
      '-addext', 'subjectAltName=DNS:files.example.test,DNS:api.example.test', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'pipe' });
    await writeFile(path.join(dir, 'server.js'), SERVER);
    const started = spawn('ip', ['netns', 'exec', name, process.execPath, path.join(dir, 'server.js'), dir, address], { stdio: ['ignore', 'pipe', 'inherit'] });
    server = started;
    await new Promise<void>((resolve, reject) => {
      started.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) resolve();
      });
      started.once('exit', (code) => reject(new Error(`the test namespace's server exited (${code})`)));
    });
  } catch (error) {
    server?.kill('SIGKILL');
    ip('netns', 'del', name);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    address,
    hostAddress,
    subnet: `${prefix}.${octet & ~3}/30`,
    httpPort: 8080,
    httpsPort: 8443,
    zeroStatusPort: 8000,
    cert: await readFile(path.join(dir, 'cert.pem'), 'utf8'),
    async close() {
      server?.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 50));
      try {
        ip('netns', 'del', name);
      } catch {
        // already gone
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
