// @ts-check
// The egress proxy process: every run's egress proxy (egressServer.mjs) lives here, outside the bot's process, so
// nothing a skill or an upstream server does to a proxy can crash the bot, exhaust its file descriptors or tie up
// its name resolution. Started by egressProxy.ts through Node's IPC channel with an allowlisted environment;
// it ends when the bot does (the channel closes). Plain JavaScript: it runs without a TypeScript loader.
//
// Messages in:  {kind: 'open', id, socketPath, settings} | {kind: 'close', id}
// Messages out: {kind: 'opened', id} | {kind: 'failed', id, error} | {kind: 'refused', id, line}
// A refusal is sent before the client hears it, so the bot has it by the time the run's processes have ended; a
// close needs no answer (nothing waits on it).
import { startRunProxy } from './egressServer.mjs';

if (process.send === undefined) throw new Error('egressProcess.mjs runs as a child with an IPC channel: start it through egressProxy.ts');

/** @type {Map<string, { close(): void }>} */
const runs = new Map();

/** @param {Record<string, unknown>} message */
const reply = (message) => {
  if (process.connected) process.send?.(message, undefined, {}, () => undefined);
};

process.on('message', (/** @type {any} */ message) => {
  if (message?.kind === 'open') {
    startRunProxy(message.socketPath, message.settings, (line) => reply({ kind: 'refused', id: message.id, line })).then(
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
