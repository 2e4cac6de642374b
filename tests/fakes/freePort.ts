// Loopback ports for the fakes: a server listening on one the OS picks, and a port nobody listens on right now
// (for a process under test that must be told its port up front).
import { createServer, type Server } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

/** Starts `server` on a loopback port the OS picks; rejects when it cannot listen. Returns the port. */
export async function listenOnLoopback(server: Pick<Server, 'once' | 'listen' | 'address'>): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}
