// The installation's egress CA: made once, kept beside the state key (one 0600 file holding certificate and key),
// used by the egress process to terminate TLS to credential hosts. Only its certificate ever reaches a sandbox
// (trustFiles below); the key stays in the bot's data folder and the egress process.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { createCa } from './certificates.mjs';

export const EGRESS_CA_FILE = 'egress-ca.pem';
/** Where a networked process's bridge (sandboxInit.ts) finds the CA for Node: NODE_EXTRA_CA_CERTS of what it starts. */
export const NODE_CA_DEFERRED = 'SKILLBOT_NODE_EXTRA_CA_CERTS';

export interface CaPems {
  certPem: string;
  keyPem: string;
}

/** Where the system's CA bundle is on the common distributions (Debian/Ubuntu/Alpine, Fedora/RHEL, openSUSE). */
export const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/ca-bundle.pem'];

const CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/;
const KEY = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n?/;

function readCa(file: string): CaPems | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`the egress CA file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const certPem = CERT.exec(text)?.[0];
  const keyPem = KEY.exec(text)?.[0];
  if (certPem === undefined || keyPem === undefined) throw new Error(`${file} does not hold a certificate and a private key; delete it to make a new CA`);
  return { certPem, keyPem };
}

/**
 * The CA in `folder` (the state key's), made there the first time; in memory when `folder` is undefined (a
 * memory:// store). Of two processes making it at once, one writes and the other reads what it wrote.
 */
export async function loadEgressCa(folder: string | undefined): Promise<CaPems> {
  if (folder === undefined) return createCa(hostname());
  const file = path.join(folder, EGRESS_CA_FILE);
  const found = readCa(file);
  if (found !== undefined) return found;
  const made = await createCa(hostname());
  mkdirSync(folder, { recursive: true });
  try {
    writeFileSync(file, `${made.certPem.trim()}\n${made.keyPem.trim()}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return made;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readCa(file) ?? made;
    throw new Error(`the egress CA file ${file} cannot be made (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The system's bundle as text (the first of SYSTEM_BUNDLES found), else Node's own roots. */
export function systemBundle(): string {
  for (const file of SYSTEM_BUNDLES) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      // not this distribution's place
    }
  }
  return `${rootCertificates.join('\n')}\n`;
}

/**
 * What the egress proxy verifies upstream certificates against: the system store plus NODE_EXTRA_CA_CERTS of the
 * bot's environment (an unreadable one is an error naming it).
 */
export function upstreamTrust(env: NodeJS.ProcessEnv): string {
  const extra = env.NODE_EXTRA_CA_CERTS;
  if (extra === undefined || extra === '') return systemBundle();
  try {
    return `${systemBundle()}\n${readFileSync(extra, 'utf8')}`;
  } catch (error) {
    throw new Error(`NODE_EXTRA_CA_CERTS names ${extra}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Inside the sandbox: the CA alone, and the system bundle with the CA appended. */
export const TRUST_INSIDE = { dir: '/run/skillbot-ca', ca: '/run/skillbot-ca/ca.pem', bundle: '/run/skillbot-ca/bundle.pem' } as const;

/**
 * The variables that make curl, Python (ssl, requests), Node and OpenSSL trust the CA. Node's arrives through the
 * bridge (sandboxInit.ts, NODE_CA_DEFERRED), which every networked process runs behind.
 */
export function trustEnv(): Record<string, string> {
  return {
    SSL_CERT_FILE: TRUST_INSIDE.bundle,
    REQUESTS_CA_BUNDLE: TRUST_INSIDE.bundle,
    CURL_CA_BUNDLE: TRUST_INSIDE.bundle,
    [NODE_CA_DEFERRED]: TRUST_INSIDE.ca,
  };
}

/** The host's system bundle file, which a run's combined bundle is bound over (none: only the variables point at it). */
export const systemBundleFile = (): string | undefined => SYSTEM_BUNDLES.find((file) => existsSync(file));

/** A run's trust files, on the host: the folder bound at TRUST_INSIDE.dir, and what to bind over the system bundle. */
export interface RunTrust {
  dir: string;
  bundle: string;
  systemFile?: string;
}

/** Writes a run's trust files into `dir` (0755, files 0644: the run's user reads them). */
export function writeTrustFiles(dir: string, caCert: string, bundle: string, systemFile: string | undefined): RunTrust {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  const combined = path.join(dir, 'bundle.pem');
  writeFileSync(path.join(dir, 'ca.pem'), caCert, { mode: 0o644 });
  writeFileSync(combined, `${bundle.trimEnd()}\n${caCert.trim()}\n`, { mode: 0o644 });
  return { dir, bundle: combined, ...(systemFile === undefined ? {} : { systemFile }) };
}

/**
 * The installation CA, loaded once per executor: what the egress process needs (`proxy`), and the trust files
 * every run and service with credentials binds read-only (`files`: written once, in a folder of the bot's in the
 * temp folder, named like a run's so a crashed bot's is swept), removed at `close`.
 */
export interface Trust {
  proxy(): Promise<CaPems & { upstreamCa: string }>;
  files(): Promise<RunTrust>;
  close(): void;
}

export function caOnce(load: () => Promise<CaPems>): Trust {
  let loading: Promise<{ proxy: CaPems & { upstreamCa: string }; cert: string }> | undefined;
  let writing: Promise<RunTrust> | undefined;
  let dir: string | undefined;
  const loaded = () => {
    loading ??= load().then((ca) => ({ proxy: { ...ca, upstreamCa: upstreamTrust(process.env) }, cert: ca.certPem }));
    // A failure is not kept: the next run tries again (and says why if it fails too).
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
  return {
    proxy: async () => (await loaded()).proxy,
    files: () => {
      writing ??= loaded().then((ca) => {
        dir ??= mkdtempSync(path.join(tmpdir(), `skillbot-run-${process.pid}-trust-`));
        return writeTrustFiles(dir, ca.cert, systemBundle(), systemBundleFile());
      });
      writing.catch(() => {
        writing = undefined;
      });
      return writing;
    },
    close: () => {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
      writing = undefined;
    },
  };
}

/** The trust files for a run or service with credentials, or why there are none (it is then refused, never run without its CA). */
export async function trustFor(trust: Trust | undefined): Promise<RunTrust | string> {
  if (trust === undefined) return 'this world gives the skill credentials, but the bot has no installation CA to inject them with, so it was not run';
  try {
    return await trust.files();
  } catch (error) {
    return `this world gives the skill credentials, but the installation CA is unusable (${(error as Error).message}), so it was not run`;
  }
}
