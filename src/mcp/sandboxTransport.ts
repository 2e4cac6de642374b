// The SDK's Transport over the pipes of a stdio server that runs in the sandbox (src/exec/longRunning.ts): the
// SDK's StdioClientTransport spawns the process itself, which only src/exec may do. Framing is ours (byteBounds.ts:
// each byte scanned once, a message bounded, the server's bytes per minute counted), messages the SDK's
// (deserializeMessage, serializeMessage); a line too long or not JSON-RPC ends the connection with one clear error.
import { deserializeMessage, type JSONRPCMessage, serializeMessage, type Transport } from '@modelcontextprotocol/client';
import type { ServiceProcess } from '../exec/longRunning.ts';
import { type ByteMeter, LineFramer } from './byteBounds.ts';

export class SandboxTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private readonly buffer: LineFramer;
  private closed = false;

  constructor(
    private readonly process: ServiceProcess,
    private readonly describe: string,
    private readonly meter: ByteMeter,
  ) {
    this.buffer = new LineFramer(meter);
  }

  async start(): Promise<void> {
    this.process.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.process.stdout.on('error', (error) => this.onerror?.(error));
    void this.process.exited.then(({ code, signal, bound }) => {
      if (this.closed) return;
      this.onerror?.(new Error(`${this.describe} exited (${signal ?? `code ${code}`})${bound === undefined ? '' : `: ${bound}`}`));
      // A server killed at its cgroup's bound would meet it again: left down with the reason, as a flood is.
      if (bound !== undefined) this.meter.trip(bound);
      this.finish();
    });
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    const lines = this.buffer.push(chunk);
    try {
      for (const line of lines) this.onmessage?.(deserializeMessage(line));
    } catch (error) {
      // Not JSON-RPC: nothing after it can be trusted to line up.
      this.onerror?.(new Error(`${this.describe} sent something that is not an MCP message (${(error as Error).message.slice(0, 200)})`));
      void this.close();
      return;
    }
    if (this.meter.why !== undefined) {
      this.onerror?.(new Error(`${this.describe} was cut off: ${this.meter.why}`));
      void this.close();
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`${this.describe} is not running`);
    const text = serializeMessage(message);
    await new Promise<void>((resolve, reject) => {
      this.process.stdin.write(text, (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    await this.process.stop();
    this.onclose?.();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    void this.process.stop();
    this.onclose?.();
  }
}
