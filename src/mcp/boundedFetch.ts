// The `fetch` the SDK's HTTP and SSE transports (and its OAuth client) use for one server: every response body
// is counted on the server's ByteMeter as it streams in, a body that is one message (JSON) stops at MESSAGE_BYTES,
// and an event stream stops at an event longer than that, or at that many bytes without an event that carries data
// (comments and empty events forever, the GET stream's favourite). Past a bound the body errors, the server is cut
// off, and every later request of that connection is refused without reaching the network.
import type { FetchLike } from '@modelcontextprotocol/client';
import { type ByteMeter, MESSAGE_BYTES, tooLong } from './byteBounds.ts';

type Limiter = (chunk: Uint8Array) => string | undefined;

/** A JSON (or any non-stream) body: one message. */
function wholeBody(): Limiter {
  let total = 0;
  return (chunk) => {
    total += chunk.length;
    return total > MESSAGE_BYTES ? tooLong('a response') : undefined;
  };
}

/**
 * An SSE body read line by line without keeping it: an event ends at an empty line (CR is ignored, so `\r\n`
 * works); an event is useful when one of its lines starts with `data`.
 */
function eventStream(): Limiter {
  let eventBytes = 0;
  let sinceUseful = 0;
  let lineLength = 0;
  let linePrefix = '';
  let hasData = false;
  return (chunk) => {
    for (const byte of chunk) {
      eventBytes++;
      sinceUseful++;
      if (byte === 0x0d) continue;
      if (byte !== 0x0a) {
        if (lineLength < 4) linePrefix += String.fromCharCode(byte);
        lineLength++;
        continue;
      }
      if (lineLength === 0) {
        if (hasData) sinceUseful = 0;
        hasData = false;
        eventBytes = 0;
      } else if (linePrefix === 'data') {
        hasData = true;
      }
      lineLength = 0;
      linePrefix = '';
    }
    if (eventBytes > MESSAGE_BYTES) return tooLong('an event');
    if (sinceUseful > MESSAGE_BYTES) return `its event stream sent more than ${Math.round(MESSAGE_BYTES / (1024 * 1024))} MiB without an event that carries data`;
    return undefined;
  };
}

function limited(body: ReadableStream<Uint8Array>, limit: Limiter, meter: ByteMeter): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        const why = meter.count(value.length) ? limit(value) : meter.why;
        if (why !== undefined) {
          meter.trip(why);
          await reader.cancel().catch(() => undefined);
          return controller.error(new Error(`the server was cut off: ${why}`));
        }
        controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** `inner` with every response body bounded by the server's meter. */
export function boundedFetch(inner: FetchLike, meter: ByteMeter): FetchLike {
  return async (url, init) => {
    if (meter.why !== undefined) throw new Error(`the server was cut off: ${meter.why}`);
    const response = await inner(url, init);
    if (response.body === null || [101, 204, 205, 304].includes(response.status)) return response;
    const stream = /^\s*text\/event-stream/i.test(response.headers.get('content-type') ?? '');
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (!stream && declared > MESSAGE_BYTES) {
      meter.trip(tooLong('a response'));
      await response.body.cancel().catch(() => undefined);
      throw new Error(`the server was cut off: ${tooLong('a response')}`);
    }
    const body = limited(response.body, stream ? eventStream() : wholeBody(), meter);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
