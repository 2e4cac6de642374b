// A DNS server on loopback (UDP, the real wire format) for the egress proxy's resolver: A records from a table,
// NXDOMAIN for other names, and names it never answers (a resolver that hangs), counting the questions it got.
import dgram from 'node:dgram';

export interface FakeDns {
  /** `127.0.0.1:PORT`, as dns.Resolver#setServers takes it. */
  server: string;
  /** Questions received, by name. */
  asked: Map<string, number>;
  close(): Promise<void>;
}

/** The name of a question (labels from offset 12) and where the question ends. */
function question(packet: Buffer): { name: string; type: number; end: number } | undefined {
  const labels: string[] = [];
  let offset = 12;
  while (offset < packet.length) {
    const length = packet[offset] ?? 0;
    if (length === 0) break;
    labels.push(packet.subarray(offset + 1, offset + 1 + length).toString('ascii'));
    offset += 1 + length;
  }
  if (offset + 5 > packet.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: packet.readUInt16BE(offset + 1), end: offset + 5 };
}

export async function startFakeDns(records: Record<string, string>, options: { silent?: (name: string) => boolean } = {}): Promise<FakeDns> {
  const socket = dgram.createSocket('udp4');
  const asked = new Map<string, number>();
  socket.on('message', (packet, from) => {
    const q = question(packet);
    if (q === undefined) return;
    asked.set(q.name, (asked.get(q.name) ?? 0) + 1);
    if (options.silent?.(q.name) === true) return;
    const address = records[q.name];
    const answers = address !== undefined && q.type === 1 ? [address] : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(packet.readUInt16BE(0), 0);
    header.writeUInt16BE(address === undefined ? 0x8183 : 0x8180, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const body = answers.map((ip) => {
      const answer = Buffer.alloc(16);
      answer.writeUInt16BE(0xc00c, 0);
      answer.writeUInt16BE(1, 2);
      answer.writeUInt16BE(1, 4);
      answer.writeUInt32BE(60, 6);
      answer.writeUInt16BE(4, 10);
      ip.split('.').forEach((part, index) => answer.writeUInt8(Number(part), 12 + index));
      return answer;
    });
    socket.send(Buffer.concat([header, packet.subarray(12, q.end), ...body]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    asked,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
