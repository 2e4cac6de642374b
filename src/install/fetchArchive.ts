// A `.skill` or `.zip` shared in the thread (what skill-creator packages): read with yauzl from memory, every
// entry checked before a byte of it is unpacked (count, declared size, packed-to-unpacked ratio, name), and
// unpacking stops at the declared size, so a zip bomb or a lying header gets no further than its first bytes.
import { createHash } from 'node:crypto';
import yauzl from 'yauzl';
import { type InstallBounds, mib, OverBound } from './bounds.ts';
import type { FetchResult } from './fetchGit.ts';
import { StagingWriter, removeStaged, safeRelative } from './staging.ts';

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

function open(bytes: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true }, (error, zip) => (error ? reject(error) : resolve(zip))),
  );
}

function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(error);
      const parts: Buffer[] = [];
      let size = 0;
      stream.on('data', (part: Buffer) => {
        size += part.byteLength;
        if (size > limit) {
          stream.destroy(new OverBound(`${entry.fileName} unpacks to more than it declares`));
          return;
        }
        parts.push(part);
      });
      stream.on('error', reject);
      stream.on('end', () => resolve(Buffer.concat(parts)));
    });
  });
}

/** Unpacks the entries one by one, in order, into the writer (or records them as oddities). */
async function unpack(zip: yauzl.ZipFile, writer: StagingWriter, bounds: InstallBounds): Promise<void> {
  if (zip.entryCount > bounds.maxFiles * 2) throw new OverBound(`the archive holds ${zip.entryCount} entries, more than ${bounds.maxFiles} files`);
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      void handle(entry).then(() => zip.readEntry(), reject);
    });
    zip.readEntry();
  });

  async function handle(entry: yauzl.Entry): Promise<void> {
    const name = entry.fileName;
    const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
    const type = mode & S_IFMT;
    if (name.endsWith('/') || type === S_IFDIR) return;
    const path = safeRelative(name);
    if (path === undefined) throw new OverBound(`the entry "${name}" leaves the folder (an absolute path or "..")`);
    if (type === S_IFLNK) {
      const target = await readEntry(zip, entry, 4096);
      writer.skip({ path, kind: 'symlink', detail: target.toString('utf8').slice(0, 300) });
      return;
    }
    if (type !== 0 && type !== S_IFREG) {
      writer.skip({ path, kind: 'device', detail: `mode ${type.toString(8)}` });
      return;
    }
    writer.admit(path, entry.uncompressedSize);
    if (entry.compressedSize > 0 && entry.uncompressedSize / entry.compressedSize > bounds.maxRatio && entry.uncompressedSize > 1024 * 1024) {
      throw new OverBound(`${path} would unpack ${mib(entry.uncompressedSize)} from ${mib(entry.compressedSize)} (a zip bomb?)`);
    }
    const bytes = await readEntry(zip, entry, entry.uncompressedSize);
    await writer.write(path, bytes, (mode & 0o111) !== 0);
  }
}

export async function fetchArchive(name: string, bytes: Uint8Array, parent: string, bounds: InstallBounds): Promise<FetchResult> {
  if (bytes.byteLength > bounds.maxDownloadBytes) return { ok: false, error: `${name} is ${mib(bytes.byteLength)}, over the ${mib(bounds.maxDownloadBytes)} a download may be` };
  const writer = await StagingWriter.create(parent, bounds);
  const buffer = Buffer.from(bytes);
  try {
    const zip = await open(buffer);
    try {
      await unpack(zip, writer, bounds);
    } finally {
      zip.close();
    }
    const sha256 = createHash('sha256').update(buffer).digest('hex');
    return { ok: true, staged: writer.finish({ kind: 'file', name, sha256 }) };
  } catch (error) {
    await removeStaged(writer.dir);
    const message = error instanceof OverBound ? error.message : `${name} is not a readable zip archive (${(error as Error).message})`;
    return { ok: false, error: message };
  }
}
