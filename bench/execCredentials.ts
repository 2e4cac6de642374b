// bench:exec's credential figures (issue 34): a networked run with credentials (placeholders, the CA's trust files,
// the proxy told the credentials) beside one without; and one HTTPS request through the egress proxy, terminated
// for a credential host (a leaf of the installation CA, the header set, a pooled TLS connection upstream) beside
// the same request through a plain CONNECT tunnel. The upstream is a server in a network namespace of our own
// (tests/exec/testNetns.ts), so this part needs root and `ip netns`.
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import type { Credential } from '../src/config/credentialsSchema.ts';
import { loadEgressCa, upstreamTrust } from '../src/exec/egressCa.ts';
import { createEgressProxies } from '../src/exec/egressProxy.ts';
import { createExecutor } from '../src/exec/executor.ts';
import { silentLogger } from '../src/ops/log.ts';
import { startFakeDns } from '../tests/fakes/dnsServer.ts';
import { openTestNetns } from '../tests/exec/testNetns.ts';

type Timer = (variants: { label: string; once: () => Promise<void> }[]) => Promise<Array<{ label: string; p50: number; p99: number }>>;

/** One HTTPS GET through the proxy's socket: CONNECT, TLS trusting `ca`, a request, the whole answer, closed. */
function getThrough(socketPath: string, host: string, port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const raw = net.connect(socketPath);
    raw.once('error', reject);
    raw.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
    raw.once('data', (head: Buffer) => {
      if (!head.toString('latin1').startsWith('HTTP/1.1 200')) {
        reject(new Error(head.toString('latin1').split('\r\n')[0]));
        return;
      }
      const secure = tls.connect({ socket: raw, servername: host, ca });
      let body = '';
      secure.once('error', reject);
      secure.on('data', (chunk: Buffer) => (body += chunk.toString()));
      secure.once('end', () => resolve(body));
      secure.once('secureConnect', () => secure.write(`GET /echo HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: Bearer skillbot-credential-API_TOKEN\r\nConnection: close\r\n\r\n`));
    });
  });
}

export async function credentialFigures(root: string, skillDir: string, time: Timer): Promise<string[]> {
  const netns = await openTestNetns();
  const dns = await startFakeDns({ 'files.example.test': netns.address, 'tunnel.example.test': netns.address });
  const outsideCa = path.join(root, 'outside-ca.pem');
  await writeFile(outsideCa, netns.cert);
  const env = { ...process.env, NODE_EXTRA_CA_CERTS: outsideCa };
  const ca = await loadEgressCa(root);
  const credentials: Credential[] = [{ host: 'files.example.test', header: 'Authorization', value: 'Bearer the-real-token', env: 'API_TOKEN' }];
  const executor = createExecutor({ timeoutMs: 30_000, logger: silentLogger(), egressAllow: [netns.subnet], egressDnsServers: [dns.server], egressCa: async () => ca });
  const proxies = createEgressProxies({ dnsServers: [dns.server], ca: async () => ({ ...ca, upstreamCa: upstreamTrust(env) }), logger: silentLogger() });
  const socket = path.join(root, 'bench-egress.sock');
  const proxy = await proxies.open(socket, { name: 'bench', allow: [netns.subnet], credentials }, undefined);
  try {
    // The terminated request must carry the real value, and the tunnelled one what the client sent.
    const injected = await getThrough(socket, 'files.example.test', netns.httpsPort, ca.certPem);
    if (!injected.includes('the-real-token')) throw new Error(`the terminated request did not carry the value: ${injected.slice(0, 200)}`);
    const tunnelled = await getThrough(socket, 'files.example.test', netns.httpsPort, netns.cert).catch(() => '');
    if (tunnelled !== '') throw new Error('a credential host was tunnelled');
    const run = (credentialed: boolean) => async () => {
      const result = await executor.run({ skillDir, script: 'scripts/hello.sh', network: true, ...(credentialed ? { credentials } : {}) });
      if (result.status !== 'ok') throw new Error(`networked run ${result.status}: ${result.reason}`);
    };
    const [without, withCredentials] = await time([
      { label: 'networked run', once: run(false) },
      { label: 'networked run + credentials', once: run(true) },
    ]);
    // Another host name of the same server, no credential: the proxy tunnels it (the client checks the server's
    // own certificate, which names files.example.test, so it is asked for by that name over the tunnel's address).
    const tunnelProxy = await proxies.open(`${socket}.tunnel`, { name: 'bench', allow: [netns.subnet] }, undefined);
    const [terminated, tunnel] = await time([
      { label: 'HTTPS GET, terminated + injected', once: async () => void (await getThrough(socket, 'files.example.test', netns.httpsPort, ca.certPem)) },
      { label: 'HTTPS GET, plain tunnel', once: async () => void (await getThrough(`${socket}.tunnel`, 'files.example.test', netns.httpsPort, netns.cert)) },
    ]);
    await tunnelProxy.close();
    // The bot's own work per run, apart from the sandbox's start (whose noise on a shared machine hides it): the
    // trust files (written once per executor) and the proxy opened with the credentials, beside one without.
    let opened = 0;
    const openOnce = (withCredentials: boolean) => async () => {
      if (withCredentials && typeof (await executor.egressTrust()) === 'string') throw new Error('no trust files');
      const extra = await proxies.open(`${socket}.${(opened += 1)}`, { name: 'bench', allow: [netns.subnet], ...(withCredentials ? { credentials } : {}) }, undefined);
      await extra.close();
    };
    const [openPlain, openCredentials] = await time([
      { label: 'proxy open (bot side)', once: openOnce(false) },
      { label: 'proxy open + credentials (bot side)', once: openOnce(true) },
    ]);
    const rows = [without, withCredentials, openPlain, openCredentials, terminated, tunnel].flatMap((row) => (row === undefined ? [] : [row]));
    const runCost = (withCredentials?.p50 ?? NaN) - (without?.p50 ?? NaN);
    const botCost = (openCredentials?.p50 ?? NaN) - (openPlain?.p50 ?? NaN);
    const ratio = (terminated?.p50 ?? NaN) / (tunnel?.p50 ?? NaN);
    return [
      ...rows.map((row) => `  ${row.label.padEnd(36)} p50 ${row.p50.toFixed(2).padStart(7)} ms   p99 ${row.p99.toFixed(2).padStart(7)} ms`),
      `  credentials add per run             p50 ${runCost.toFixed(2).padStart(7)} ms   target <= 5 ms -> ${runCost <= 5 ? 'met' : 'NOT met'}`,
      `  credentials add, bot side only      p50 ${botCost.toFixed(2).padStart(7)} ms   (the run's figure above is within the sandbox's noise here)`,
      `  terminated / tunnel per request     p50 ${ratio.toFixed(2).padStart(7)} x    target <= 2x -> ${ratio <= 2 ? 'met' : 'NOT met'}`,
    ];
  } finally {
    await proxy.close();
    proxies.close();
    executor.close();
    await dns.close();
    await netns.close();
  }
}
