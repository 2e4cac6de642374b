// The Socket Mode side of the fake: apps.connections.open hands out this WebSocket URL; envelopes go down it
// and the bot acknowledges each by its envelope_id (with an optional payload, e.g. a slash command's answer).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export type EnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

export interface SocketModeLink {
  /** Open connections that got their `hello`. */
  readonly connections: number;
  /**
   * Sends an envelope on the newest connection and resolves with the acknowledgement's payload. Sending the
   * same envelope id again is a replay, as Slack does when an ack did not arrive.
   */
  deliver(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    options?: { envelopeId?: string; retryAttempt?: number; timeoutMs?: number },
  ): Promise<Record<string, unknown>>;
}

export class FakeSocketMode implements SocketModeLink {
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #open: WebSocket[] = [];
  readonly #acks = new Map<string, Array<(payload: Record<string, unknown>) => void>>();

  get connections(): number {
    return this.#open.length;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.#open.push(ws);
      ws.on('close', () => this.#open.splice(this.#open.indexOf(ws), 1));
      ws.on('message', (data) => this.#onMessage(String(data)));
      ws.send(JSON.stringify({ type: 'hello', num_connections: this.#open.length, connection_info: { app_id: 'AFAKEAPP' } }));
    });
  }

  deliver(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    options: { envelopeId?: string; retryAttempt?: number; timeoutMs?: number } = {},
  ): Promise<Record<string, unknown>> {
    const ws = this.#open.at(-1);
    if (ws === undefined) return Promise.reject(new Error('fake Slack: no Socket Mode connection'));
    const envelopeId = options.envelopeId ?? randomUUID();
    const acked = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fake Slack: envelope ${envelopeId} was not acknowledged`)), options.timeoutMs ?? 3000);
      const waiting = this.#acks.get(envelopeId) ?? [];
      waiting.push((ack) => {
        clearTimeout(timer);
        resolve(ack);
      });
      this.#acks.set(envelopeId, waiting);
    });
    ws.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload: type !== 'events_api',
        ...(type === 'events_api' ? { retry_attempt: options.retryAttempt ?? 0, retry_reason: options.retryAttempt ? 'timeout' : '' } : {}),
      }),
    );
    return acked;
  }

  #onMessage(text: string): void {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (typeof message.envelope_id !== 'string') return;
    const waiting = this.#acks.get(message.envelope_id)?.shift();
    waiting?.((message.payload ?? {}) as Record<string, unknown>);
  }

  close(): void {
    for (const ws of this.#open) ws.terminate();
    this.#wss.close();
  }
}
