// FLUSHDB on the run's dedicated Redis database, as two raw RESP commands over node:net (no client needed).
import { connect } from 'node:net';
import { redisDbOf } from './settings.ts';

function command(...args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

/** SELECT db, FLUSHDB. Refuses db 0. Rejects unless Redis answers +OK twice within 5 s. */
export function flushRedisDb(url: string): Promise<void> {
  const db = redisDbOf(url);
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    let reply = '';
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(5_000, () => fail(new Error(`Redis at ${hostname}:${port} did not answer FLUSHDB in time`)));
    socket.on('error', fail);
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.startsWith('-') || reply.includes('\r\n-')) fail(new Error(`Redis refused: ${reply.trim()}`));
      else if (reply === '+OK\r\n+OK\r\n') {
        socket.end();
        resolve();
      }
    });
    socket.write(command('SELECT', String(db)) + command('FLUSHDB'));
  });
}
