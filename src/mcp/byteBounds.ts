// What one MCP server may send the bot, whatever the transport: one message (a stdio line, an HTTP body, an SSE
// event) of at most MESSAGE_BYTES, and at most MINUTE_BYTES in any minute. A server past a bound is cut off and
// left down with the reason (connections.ts), as a stdio server that died twice is: its bytes never reach the
// bot's memory first and a bound second.

/** One JSON-RPC message: far above any tool result the model reads (results.ts cuts those to ~64 KB). */
export const MESSAGE_BYTES = 4 * 1024 * 1024;
/** Everything a server sends in one minute. */
export const MINUTE_BYTES = 64 * 1024 * 1024;
const MINUTE_MS = 60_000;

const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;

/** The sentence for a message over the bound. */
export const tooLong = (what: string) => `it sent ${what} longer than ${mib(MESSAGE_BYTES)}`;

/** Counts one server's bytes per minute; the first bound passed trips it, once, with its reason. */
export class ByteMeter {
  private windowStart: number;
  private inWindow = 0;
  private tripped: string | undefined;

  constructor(
    private readonly onTrip: (why: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  /** Why the server was cut off, or undefined while it is within its bounds. */
  get why(): string | undefined {
    return this.tripped;
  }

  /** Counts bytes received; false (and tripped) once the minute's budget is passed. */
  count(bytes: number): boolean {
    if (this.tripped !== undefined) return false;
    const now = this.now();
    if (now - this.windowStart >= MINUTE_MS) {
      this.windowStart = now;
      this.inWindow = 0;
    }
    this.inWindow += bytes;
    if (this.inWindow <= MINUTE_BYTES) return true;
    this.trip(`it sent more than ${mib(MINUTE_BYTES)} in one minute`);
    return false;
  }

  trip(why: string): void {
    if (this.tripped !== undefined) return;
    this.tripped = why;
    this.onTrip(why);
  }
}

/**
 * Newline-delimited JSON-RPC framing that looks at each byte once: a chunk is scanned for `\n` and kept, and
 * only a complete line is joined and parsed (the SDK's ReadBuffer joins and rescans the whole buffer per chunk,
 * which 31 MiB of one line turns into gigabytes of copying). A line past MESSAGE_BYTES trips the meter.
 */
export class LineFramer {
  private parts: Buffer[] = [];
  private pending = 0;

  constructor(private readonly meter: ByteMeter) {}

  /** The complete lines in `chunk` (and before it), as text; none once the meter has tripped. */
  push(chunk: Buffer): string[] {
    if (!this.meter.count(chunk.length)) return this.drop();
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, end);
      if (this.pending + piece.length > MESSAGE_BYTES) return this.overLong();
      lines.push(Buffer.concat([...this.parts, piece]).toString('utf8').replace(/\r$/, ''));
      this.parts = [];
      this.pending = 0;
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (this.pending + rest.length > MESSAGE_BYTES) return this.overLong();
    if (rest.length > 0) {
      // A copy: the stream may reuse its buffer.
      this.parts.push(Buffer.from(rest));
      this.pending += rest.length;
    }
    return lines;
  }

  clear(): void {
    this.drop();
  }

  private overLong(): string[] {
    this.meter.trip(tooLong('a message'));
    return this.drop();
  }

  private drop(): string[] {
    this.parts = [];
    this.pending = 0;
    return [];
  }
}
