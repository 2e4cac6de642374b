// Keeps the first bytes of a stream up to a cap and only counts the rest, so a chatty script cannot fill memory.

export interface CappedOutput {
  text: string;
  truncated: boolean;
  droppedBytes: number;
}

export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;

export class OutputCap {
  private readonly chunks: Buffer[] = [];
  private keptBytes = 0;
  private totalBytes = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    const room = this.maxBytes - this.keptBytes;
    if (room <= 0) return;
    // Copy a partial tail so the large chunk it came from can be collected.
    const kept = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
    this.chunks.push(kept);
    this.keptBytes += kept.length;
  }

  /** The kept text, cut on a UTF-8 boundary, ending with a notice (within the cap) when bytes were dropped. */
  finish(): CappedOutput {
    const all = Buffer.concat(this.chunks, this.keptBytes);
    if (this.totalBytes <= this.maxBytes) {
      return { text: all.toString('utf8'), truncated: false, droppedBytes: 0 };
    }
    // Reserve room for the notice; the dropped count is at most the total, so the final notice fits.
    const reserve = Buffer.byteLength(truncationNotice(this.totalBytes));
    if (reserve > this.maxBytes) {
      // A cap smaller than the notice keeps plain content only.
      const bare = cutOnCodePoint(all);
      return { text: bare.toString('utf8'), truncated: true, droppedBytes: this.totalBytes - bare.length };
    }
    const content = cutOnCodePoint(all.subarray(0, this.maxBytes - reserve));
    const droppedBytes = this.totalBytes - content.length;
    return { text: content.toString('utf8') + truncationNotice(droppedBytes), truncated: true, droppedBytes };
  }
}

function truncationNotice(droppedBytes: number): string {
  return `\n[output truncated: ${droppedBytes} more bytes dropped]`;
}

/** Drops an incomplete multi-byte sequence at the end, so decoding never yields U+FFFD at the cut. */
function cutOnCodePoint(bytes: Buffer): Buffer {
  // Look back at most 3 bytes for the lead byte of the last sequence.
  for (let back = 1; back <= Math.min(4, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back];
    if (byte === undefined) break;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}
