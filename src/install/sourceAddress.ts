// Where the bot may fetch a git source from: public addresses, as the egress proxy decides for skill processes
// (src/exec/addressPolicy.mjs, the same code), so a person in a chat cannot make the bot read an internal git
// server, a cloud metadata endpoint or a service on the host itself. The address checked is the one connected to
// (the check sits in the connection's DNS lookup), so a name that resolves differently a moment later gains nothing.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { addressPolicy, ownAddresses } from '../exec/addressPolicy.mjs';

export interface FetchGuard {
  /** Why `host` (a name or an IP literal) at `address` may not be fetched from, or undefined when it may. */
  refuses(host: string, address: string): string | undefined;
  /** The guard for one URL: the operator's INSTALL_GITHUB_URL origin is reached wherever it resolves. */
  forUrl(url: URL): FetchGuard;
}

/** A git source's host resolved to an address the bot does not fetch from. */
export class PrivateAddress extends Error {
  override name = 'PrivateAddress';
}

/** Scheme, host and port, as URL spells them (the default port left out), so `http://h` is never `https://h:8443`. */
const originOf = (url: URL): string => `${url.protocol}//${url.host.toLowerCase()}`;

/**
 * The guard for installs. `allow` is `install.egressAllow` (a listed range or name may even be loopback); the origin
 * of INSTALL_GITHUB_URL (scheme, host and port, which the operator named) is reached wherever it resolves. Its
 * host on another port or scheme is not: that would be any service on that host.
 */
export function fetchGuard(allow: readonly string[], githubUrl: string, hostAddresses: () => string[] = ownAddresses): FetchGuard {
  const policy = addressPolicy(allow, hostAddresses, { listedMayBeLocal: true });
  const trusted = originOf(new URL(githubUrl));
  const guarded: FetchGuard = {
    refuses: (host, address) => policy.refuses(address, isIP(host) === 0 ? host : undefined),
    forUrl: (url) => (originOf(url) === trusted ? open : guarded),
  };
  const open: FetchGuard = { refuses: () => undefined, forUrl: guarded.forUrl };
  return guarded;
}

function refusal(host: string, address: string, why: string): PrivateAddress {
  const named = host === address ? host : `${host} (${address})`;
  return new PrivateAddress(
    `${named} is not a public address (${why}): the bot does not fetch from private, loopback or link-local addresses unless the operator lists it in install.egressAllow`,
  );
}

/** Before connecting to an IP literal (no lookup happens then). */
export function checkLiteral(guard: FetchGuard, host: string): void {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0) return;
  const why = guard.refuses(bare, bare);
  if (why !== undefined) throw refusal(bare, bare, why);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for node:http(s) that refuses a name any of whose addresses the guard refuses. */
export function guardedLookup(guard: FetchGuard) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const why = guard.refuses(hostname, address);
        if (why !== undefined) return callback(refusal(hostname, address, why), []);
      }
      const [first] = addresses;
      if (options.all === true) return callback(null, addresses);
      if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
