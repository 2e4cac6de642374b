// @ts-check
// The egress proxy process: every run's egress proxy (egressServer.mjs) lives here, outside the bot's process, so
// nothing a skill or an upstream server does to a proxy can crash the bot, exhaust its file descriptors or tie up
// its name resolution. Started by egressProxy.ts through Node's IPC channel with an allowlisted environment;
// it ends when the bot does (the channel closes). Plain JavaScript: it runs without a TypeScript loader.
//
// Messages in:  {kind: 'ca', certPem, keyPem, upstreamCa} (once, before an open with credentials)
//               | {kind: 'open', id, socketPath, settings} | {kind: 'close', id}
// Messages out: {kind: 'opened', id} | {kind: 'failed', id, error} | {kind: 'refused', id, line}
//               | {kind: 'leak', id, env, where} (a credential placeholder refused on its way to another host)
// A refusal is sent before the client hears it, so the bot has it by the time the run's processes have ended; a
// close needs no answer (nothing waits on it).
import tls from 'node:tls';
import { leafIssuer } from './certificates.mjs';
import { startRunProxy } from './egressServer.mjs';

if (process.send === undefined) throw new Error('egressProcess.mjs runs as a child with an IPC channel: start it through egressProxy.ts');

/** @type {Map<string, { close(): void }>} */
const runs = new Map();
/** The installation CA's leaves (one per host, made once) and the upstream trust: set by the `ca` message. */
/** @type {Promise<import('./egressCredentials.mjs').Termination> | undefined} */
let termination;

/** @param {{ certPem: string; keyPem: string; upstreamCa: string }} message */
function setCa(message) {
  termination = leafIssuer(message).then((issue) => {
    /** @type {Map<string, Promise<tls.SecureContext>>} */
    const leaves = new Map();
    const upstream = tls.createSecureContext({ ca: message.upstreamCa });
    return {
      upstream,
      leaf: (host) => {
        let context = leaves.get(host);
        if (context === undefined) {
          context = issue(host).then((leaf) => tls.createSecureContext({ cert: `${leaf.cert.trim()}\n${message.certPem.trim()}\n`, key: leaf.key }));
          // A failure is not kept: the next CONNECT tries again.
          context.catch(() => leaves.delete(host));
          leaves.set(host, context);
        }
        return context;
      },
    };
  });
  termination.catch((/** @type {Error} */ error) => process.stderr.write(`egress proxy: the installation CA is unusable: ${error.message}\n`));
}

/** @param {Record<string, unknown>} message */
const reply = (message) => {
  if (process.connected) process.send?.(message, undefined, {}, () => undefined);
};

process.on('message', (/** @type {any} */ message) => {
  if (message?.kind === 'ca') setCa(message);
  else if (message?.kind === 'open') {
    const credentials = message.settings?.credentials?.length > 0;
    Promise.resolve(credentials ? termination : undefined)
      .then((terms) => {
        // Leaves of the exact hosts are made now, while the sandbox starts, not on the run's first request.
        for (const credential of message.settings.credentials ?? []) if (!credential.host.startsWith('*.')) terms?.leaf(credential.host).catch(() => undefined);
        return startRunProxy(message.socketPath, message.settings, (line) => reply({ kind: 'refused', id: message.id, line }), {
          ...(terms === undefined ? {} : { termination: terms }),
          onLeak: (env, where) => reply({ kind: 'leak', id: message.id, env, where }),
        });
      })
      .then(
      (run) => {
        runs.set(message.id, run);
        reply({ kind: 'opened', id: message.id });
      },
      (/** @type {Error} */ error) => reply({ kind: 'failed', id: message.id, error: error.message }),
    );
  } else if (message?.kind === 'close') {
    runs.get(message.id)?.close();
    runs.delete(message.id);
  }
});

// The bot is gone: so is every sandbox this served.
process.on('disconnect', () => process.exit(0));
// Last resort: a fault of ours in one connection must not end every run's proxy.
process.on('uncaughtException', (error) => process.stderr.write(`egress proxy: ${error.stack ?? error.message}\n`));
process.on('unhandledRejection', (error) => process.stderr.write(`egress proxy: ${String(error)}\n`));
