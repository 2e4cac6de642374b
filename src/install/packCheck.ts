// A git server's pack checked object by object before isomorphic-git reads it. isomorphic-git inflates each
// object whole with no output bound and builds each delta's result before comparing it with the size the delta
// declares, so an 8 KB pack whose one delta copies its base a million times takes the bot to gigabytes. Here
// every object's declared size is compared with the bound first, then inflated with an output cap of that size,
// and every delta's instructions are added up (never applied): what it would build must match what it declares
// and fit the bound. Only then is the response handed on.
import { inflateSync } from 'node:zlib';
import { mib } from './bounds.ts';

export interface PackBounds {
  /** One object (a file, a tree, a delta's result), unpacked. */
  maxObjectBytes: number;
  /** Every object of the pack together, unpacked. */
  maxTotalBytes: number;
  /** Objects in the pack. */
  maxObjects: number;
}

/** The pack data an upload-pack response carries (side band 1), as isomorphic-git demultiplexes it. */
export function packOfResponse(body: Buffer): Buffer | string {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 4 <= body.length) {
    const hex = body.toString('latin1', at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) return 'the server answered something that is not git (a bad pkt-line)';
    const length = Number.parseInt(hex, 16);
    if (length <= 1) {
      at += 4;
      continue;
    }
    if (length < 4 || at + length > body.length) return 'the server answered a truncated git response';
    if (body[at + 4] === 1) parts.push(body.subarray(at + 5, at + length));
    at += length;
  }
  return Buffer.concat(parts);
}

/** A variable-length size as pack headers and delta headers write them (7 bits a byte, low first). */
function varint(data: Buffer, start: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  let at = start;
  for (;;) {
    const byte = data[at++];
    if (byte === undefined || shift > 49) return [Number.NaN, at];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return [value, at];
  }
}

/** What a delta's instructions build, in bytes (NaN when they are malformed), without building it. */
function deltaResult(delta: Buffer): { base: number; declared: number; built: number } {
  const [base, afterBase] = varint(delta, 0);
  const [declared, start] = varint(delta, afterBase);
  let built = 0;
  let at = start;
  while (at < delta.length) {
    const op = delta[at++] as number;
    if (op & 0x80) {
      let size = 0;
      for (let bit = 0; bit < 4; bit += 1) if (op & (1 << bit)) at += 1;
      for (let bit = 0; bit < 3; bit += 1) if (op & (0x10 << bit)) size |= (delta[at++] ?? 0) << (8 * bit);
      built += size === 0 ? 0x10000 : size;
    } else if (op > 0) {
      built += op;
      at += op;
    } else return { base, declared, built: Number.NaN };
  }
  return { base, declared, built: at > delta.length ? Number.NaN : built };
}

const TYPES = ['', 'commit', 'tree', 'blob', 'tag', '', 'ofs-delta', 'ref-delta'];

/**
 * Why the pack may not be read (a bound crossed, or a malformed object), or undefined when every object fits.
 * Yields to the event loop between objects, so another chat's turn is not held up by a large pack.
 */
export async function checkPack(pack: Buffer, bounds: PackBounds): Promise<string | undefined> {
  if (pack.length === 0) return undefined;
  if (pack.length < 12 || pack.toString('latin1', 0, 4) !== 'PACK') return 'the server sent something that is not a git pack';
  const count = pack.readUInt32BE(8);
  if (count > bounds.maxObjects) return `the repository holds ${count} objects, more than the ${bounds.maxObjects} a fetch may bring`;
  let at = 12;
  let total = 0;
  let sinceYield = 0;
  for (let index = 0; index < count; index += 1) {
    const first = pack[at];
    if (first === undefined) return 'the pack ends early';
    const type = TYPES[(first >> 4) & 7] ?? '';
    let declared = first & 0x0f;
    let shift = 4;
    at += 1;
    for (let byte = first; byte & 0x80; shift += 7) {
      byte = pack[at++] ?? 0;
      declared += (byte & 0x7f) * 2 ** shift;
    }
    if (type === '') return 'the pack holds an object of an unknown type';
    if (type === 'ofs-delta') at = varint(pack, at)[1];
    if (type === 'ref-delta') at += 20;
    if (declared > bounds.maxObjectBytes) return `the repository holds an object of ${mib(declared)}, over the ${mib(bounds.maxObjectBytes)} one may be`;
    let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      // Capped at what it declares: an object that inflates to more is refused after that many bytes.
      inflated = inflateSync(pack.subarray(at), { info: true, maxOutputLength: Math.max(declared, 1) }) as unknown as typeof inflated;
    } catch {
      return 'the pack holds an object that does not inflate to the size it declares';
    }
    if (inflated.buffer.length !== declared) return 'the pack holds an object that does not inflate to the size it declares';
    at += inflated.engine.bytesWritten;
    let size = declared;
    if (type === 'ofs-delta' || type === 'ref-delta') {
      const delta = deltaResult(inflated.buffer);
      if (Number.isNaN(delta.built) || delta.built !== delta.declared) return 'the pack holds a malformed delta (what it builds is not what it declares)';
      if (delta.declared > bounds.maxObjectBytes) return `the repository holds a delta that builds ${mib(delta.declared)}, over the ${mib(bounds.maxObjectBytes)} one object may be`;
      size = delta.declared;
    }
    total += size;
    if (total > bounds.maxTotalBytes) return `the repository unpacks to more than ${mib(bounds.maxTotalBytes)}`;
    sinceYield += size;
    if (sinceYield > 4 * 1024 * 1024) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return undefined;
}
