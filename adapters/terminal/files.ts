// Files in the terminal chat: `/attach PATH` hands a file of this computer to the next message, as a Slack upload
// comes with its message (the core places it in the chat's workspace and names it with its `File:` line); files a
// run delivers are copied to OUTPUTS_DIR/<chat folder>/ on this computer, and the chat prints where.
import { randomUUID } from 'node:crypto';
import { chown, mkdir, open, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { MessageFile, OutgoingFile } from '../../src/platform/index.ts';

/** The person's attachments waiting for their next message, and the host paths behind their ids. */
export class TerminalFiles {
  readonly #paths = new Map<string, string>();
  #pending: MessageFile[] = [];

  constructor(private readonly options: { maxBytes: number; maxPerMessage: number; outputsDir: string; cwd?: string }) {}

  /**
   * Takes `PATH` (the rest of the line: quotes and a leading `~` as a shell would read them) for the next message.
   * Returns the line to print: what was attached, or why not.
   */
  async attach(raw: string): Promise<string> {
    const given = unquote(raw.trim());
    if (given === '') return 'Usage: /attach PATH (the file goes with your next message).';
    const file = path.resolve(this.options.cwd ?? process.cwd(), given === '~' || given.startsWith('~/') ? path.join(homedir(), given.slice(1)) : given);
    let size: number;
    try {
      const info = await stat(file);
      if (!info.isFile()) return `Not attached: ${file} is not a file.`;
      size = info.size;
    } catch (error) {
      return `Not attached: ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}.`;
    }
    if (size > this.options.maxBytes) return `Not attached: ${file} is ${size} bytes, over the ${this.options.maxBytes}-byte limit (FILE_MAX_BYTES).`;
    if (this.#pending.length >= this.options.maxPerMessage) return `Not attached: a message takes at most ${this.options.maxPerMessage} files (FILES_PER_MESSAGE).`;
    const id = randomUUID();
    this.#paths.set(id, file);
    this.#pending.push({ id, name: path.basename(file), mimeType: '', size, url: `file://${file}` });
    const names = this.#pending.map((entry) => entry.name).join(', ');
    return `Attached ${path.basename(file)} (${size} bytes); it goes with your next message (now: ${names}).`;
  }

  /** The attachments for the message being sent; the list starts empty again. */
  take(): MessageFile[] {
    const files = this.#pending;
    this.#pending = [];
    return files;
  }

  /** The port's fetchFile: only files this session attached are read (a stored message cannot name another path). */
  async fetch(file: MessageFile): Promise<Uint8Array> {
    const host = this.#paths.get(file.id);
    if (host === undefined) throw new Error('this terminal session did not attach it');
    const bytes = await readFile(host);
    if (bytes.byteLength > this.options.maxBytes) throw new Error(`it grew over the ${this.options.maxBytes}-byte limit since it was attached`);
    return bytes;
  }

  /**
   * Copies a delivered file to OUTPUTS_DIR/<chat folder>/, never over an earlier file (a clash gets " (2)" before
   * the extension), owned by the person running the chat (under sudo: the invoking user). Returns the host path.
   */
  async save(chatId: string, file: OutgoingFile): Promise<string> {
    const dir = path.resolve(this.options.outputsDir, chatFolder(chatId));
    await mkdir(dir, { recursive: true });
    const owner = invokingUser();
    if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
    const name = path.basename(file.name) || 'output';
    for (let n = 1; ; n += 1) {
      const candidate = path.join(dir, n === 1 ? name : numbered(name, n));
      // `wx`: created here or not at all, so neither a clash nor a link planted at the name is written through.
      const handle = await open(candidate, 'wx', 0o644).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return undefined;
        throw error;
      });
      if (handle === undefined) {
        if (n > 1000) throw new Error(`${dir} holds too many files named ${name}`);
        continue;
      }
      try {
        await handle.writeFile(file.bytes);
        if (owner !== undefined) await handle.chown(owner.uid, owner.gid);
      } finally {
        await handle.close();
      }
      return candidate;
    }
  }
}

/** The folder of a chat under OUTPUTS_DIR: its session name (`terminal:local/ab12cd34` → `ab12cd34`), made safe. */
export function chatFolder(chatId: string): string {
  const session = chatId.slice(chatId.indexOf('/') + 1);
  const safe = session.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return safe === '' ? '_' : safe;
}

function numbered(name: string, n: number): string {
  const ext = path.extname(name);
  return `${name.slice(0, name.length - ext.length)} (${n})${ext}`;
}

function unquote(text: string): string {
  const quoted = /^(['"])(.*)\1$/.exec(text);
  return quoted ? (quoted[2] ?? '') : text.replace(/\\ /g, ' ');
}

/** Under sudo, the person who ran it: their files should not end up root's. */
function invokingUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(process.env.SUDO_UID);
  const gid = Number(process.env.SUDO_GID);
  return Number.isInteger(uid) && uid > 0 && Number.isInteger(gid) ? { uid, gid } : undefined;
}

