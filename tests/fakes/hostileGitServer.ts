// A hostile git server on loopback: it speaks smart HTTP (the advertisement, then an upload-pack answer in side
// band 64k, as GitHub does) and serves packs written byte by byte, so a test can send what `git` never would:
// a tiny pack whose one delta builds a huge object (N1), an object that declares one size and inflates to
// another, or a refusal carrying the server's own text.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';

export interface HostileGitServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Upload-pack requests answered so far. */
  packsServed: () => number;
  close(): Promise<void>;
}

const pkt = (text: string | Buffer): Buffer => {
  const data = typeof text === 'string' ? Buffer.from(text) : text;
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0')), data]);
};
const FLUSH = Buffer.from('0000');

const oidOf = (type: string, data: Buffer): Buffer => createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest();

function header(type: number, size: number): Buffer {
  const bytes = [((type & 7) << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1] = (bytes.at(-1) as number) | 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    let byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
    if (rest > 0) byte |= 0x80;
    bytes.push(byte);
  } while (rest > 0);
  return Buffer.from(bytes);
}

export interface Bomb {
  /** What the one delta builds, in bytes. */
  builds: number;
  /** The size the delta says it builds (default: the truth). A lie is what isomorphic-git checks only after building. */
  declares?: number;
}

/** A one-commit pack: SKILL.md is a 64 KiB blob, and a second file a ref-delta that copies it until `builds`. */
export function bombPack(bomb: Bomb): { commit: string; pack: Buffer } {
  const base = Buffer.alloc(64 * 1024, 0x61);
  const baseOid = oidOf('blob', base);
  // 0x80 alone: copy 64 KiB from offset 0 of the base. One byte of instruction per 64 KiB built.
  const copies = Math.ceil(bomb.builds / 0x10000);
  const delta = Buffer.concat([varint(base.length), varint(bomb.declares ?? copies * 0x10000), Buffer.alloc(copies, 0x80)]);
  // The tree names the built file by an oid no one computed: the pack is read (and would be built) before the tree.
  const tree = Buffer.concat([Buffer.from('100644 SKILL.md\0'), baseOid, Buffer.from('100644 big.txt\0'), Buffer.alloc(20, 7)]);
  const commitText = Buffer.from(`tree ${oidOf('tree', tree).toString('hex')}\nauthor a <a@example.com> 0 +0000\ncommitter a <a@example.com> 0 +0000\n\nbomb\n`);
  const objects = [
    Buffer.concat([header(1, commitText.length), deflateSync(commitText)]),
    Buffer.concat([header(2, tree.length), deflateSync(tree)]),
    Buffer.concat([header(3, base.length), deflateSync(base)]),
    Buffer.concat([header(7, delta.length), baseOid, deflateSync(delta, { level: 9 })]),
  ];
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(objects.length, 8);
  const body = Buffer.concat([head, ...objects]);
  const pack = Buffer.concat([body, createHash('sha1').update(body).digest()]);
  return { commit: oidOf('commit', commitText).toString('hex'), pack };
}

/** Serves every `/owner/repo.git` as the one commit of `pack`. */
export async function startHostileGitServer(made: { commit: string; pack: Buffer }): Promise<HostileGitServer> {
  let served = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname.endsWith('/info/refs')) {
      const caps = 'multi_ack side-band-64k ofs-delta shallow no-progress symref=HEAD:refs/heads/main agent=git/2.43.0';
      const body = Buffer.concat([pkt('# service=git-upload-pack\n'), FLUSH, pkt(`${made.commit} HEAD\0${caps}\n`), pkt(`${made.commit} refs/heads/main\n`), FLUSH]);
      res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' }).end(body);
      return;
    }
    if (req.method === 'POST' && url.pathname.endsWith('/git-upload-pack')) {
      served += 1;
      req.resume();
      req.on('end', () => {
        const parts = [pkt(`shallow ${made.commit}\n`), FLUSH, pkt('NAK\n')];
        for (let at = 0; at < made.pack.length; at += 65515) parts.push(pkt(Buffer.concat([Buffer.from([1]), made.pack.subarray(at, at + 65515)])));
        parts.push(FLUSH);
        res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' }).end(Buffer.concat(parts));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    packsServed: () => served,
    async close() {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
