// server-everything in its Streamable HTTP mode on a loopback port: a third-party MCP server reached over HTTP.
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../fakes/freePort.ts';
import { EVERYTHING_ENTRY } from './harness.ts';

export interface EverythingHttp {
  url: string;
  close(): Promise<void>;
}

export async function startEverythingHttp(): Promise<EverythingHttp> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING_ENTRY, 'streamableHttp'], { env: { PATH: process.env.PATH ?? '', PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
