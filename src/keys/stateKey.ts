// The key of the records that grant power (see recordSeal.ts). SKILLBOT_STATE_KEY when set (required for
// several instances sharing Redis: they must all verify each other's grants); otherwise a random key made
// once into a 0600 file beside the SQLite store, which the sandbox never exposes to skill code.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../config/envVars.ts';

export const STATE_KEY_FILE = 'state.key';
const KEY_BYTES = 32;

export interface StateKey {
  secret: Buffer;
  /** Where it came from, for logs and `skillbot doctor`. */
  source: 'env' | 'file' | 'memory';
  /** The key file, when `source` is `file`. */
  file?: string;
  /** A shared store without SKILLBOT_STATE_KEY: other instances cannot verify this one's records. */
  warning?: string;
}

/** The folder of the key file: the SQLite store's, else ./data (the egress CA lives there too: egressCa.ts). */
export function keyFolder(storeUrl: string, cwd: string): string {
  if (storeUrl.startsWith('sqlite://')) return dirname(resolve(cwd, storeUrl.slice('sqlite://'.length)));
  return resolve(cwd, 'data');
}

function readOrCreate(file: string): Buffer {
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(text)) return Buffer.from(text, 'hex');
    throw new ConfigError(`${file} does not hold a state key (64 hex digits); delete it to make a new one (open approvals and grants are then ignored).`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(KEY_BYTES);
  try {
    // `wx`: of two processes starting at once, one writes and the other reads what it wrote.
    writeFileSync(file, `${secret.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readOrCreate(file);
    throw error;
  }
}

/** Throws ConfigError for an unusable key or key file. */
export function loadStateKey(config: { stateKey?: string; storeUrl: string }, cwd: string = process.cwd()): StateKey {
  if (config.stateKey !== undefined) return { secret: Buffer.from(config.stateKey, 'utf8'), source: 'env' };
  if (config.storeUrl === 'memory://') return { secret: randomBytes(KEY_BYTES), source: 'memory' };
  const file = join(keyFolder(config.storeUrl, cwd), STATE_KEY_FILE);
  let secret: Buffer;
  try {
    secret = readOrCreate(file);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`the state key file ${file} cannot be read or made (${(error as NodeJS.ErrnoException).code ?? 'error'}); set SKILLBOT_STATE_KEY instead.`);
  }
  const shared = /^rediss?:\/\//.test(config.storeUrl);
  return {
    secret,
    source: 'file',
    file,
    ...(shared
      ? { warning: `STORE_URL is Redis but SKILLBOT_STATE_KEY is unset: the state key is in ${file}, so other instances cannot verify this one's approvals and grants. Set the same SKILLBOT_STATE_KEY on every instance.` }
      : {}),
  };
}

/**
 * One line for `skillbot doctor`: where the key comes from, and whether that suits the store. Not ok for
 * Redis without SKILLBOT_STATE_KEY: several instances would not verify each other's grants and answers.
 */
export function stateKeyCheck(config: { stateKey?: string; storeUrl: string }, cwd: string = process.cwd()): { ok: boolean; line: string } {
  let key: StateKey;
  try {
    key = loadStateKey(config, cwd);
  } catch (error) {
    return { ok: false, line: `state key: ${(error as Error).message}` };
  }
  if (key.warning !== undefined) return { ok: false, line: `state key: ${key.warning}` };
  if (key.source === 'env') return { ok: true, line: 'state key: SKILLBOT_STATE_KEY (grants and approval answers are sealed with it)' };
  if (key.source === 'memory') return { ok: true, line: 'state key: in memory (memory:// store; nothing outlives the process)' };
  return { ok: true, line: `state key: ${key.file} (mode 0600; set SKILLBOT_STATE_KEY before adding instances)` };
}
