// @ts-check
// Where one run's egress proxy may connect (egressServer.mjs): names resolved by its own c-ares resolver (never the
// host's getaddrinfo threads), each name once per run and at most `maxLookups` of them, and the first address the
// address policy allows; a literal address is checked as it is.
import { Resolver } from 'node:dns/promises';
import net from 'node:net';
import { addressPolicy } from './addressPolicy.mjs';

/** @typedef {{ ok: true; address: string } | { ok: false; why: string }} Target */

/**
 * @param {{ allow: string[]; lookupTimeoutMs: number; maxLookups: number; dnsServers?: string[] }} settings
 * @returns {{ resolveTarget: (host: string) => Promise<Target>; cancel: () => void }}
 */
export function targetResolver(settings) {
  const policy = addressPolicy(settings.allow);
  const resolver = new Resolver({ timeout: settings.lookupTimeoutMs, tries: 2 });
  if (settings.dnsServers !== undefined && settings.dnsServers.length > 0) resolver.setServers(settings.dnsServers);
  /** @type {Map<string, Promise<string[]>>} */
  const lookups = new Map();

  /** @param {string} name */
  const resolveName = (name) => {
    const known = lookups.get(name);
    if (known !== undefined) return known;
    if (lookups.size >= settings.maxLookups) return Promise.reject(Object.assign(new Error('too many lookups'), { code: `more than ${settings.maxLookups} names in one run` }));
    const both = Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]).then(([v4, v6]) => {
      const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
      if (addresses.length > 0) return addresses;
      throw v4.status === 'rejected' ? v4.reason : new Error('no address');
    });
    lookups.set(name, both);
    return both;
  };

  /** @param {string} host @returns {Promise<Target>} */
  const resolveTarget = async (host) => {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    if (net.isIP(bare) !== 0) {
      const why = policy.refuses(bare);
      return why === undefined ? { ok: true, address: bare } : { ok: false, why };
    }
    /** @type {string[]} */
    let addresses;
    try {
      addresses = await resolveName(bare);
    } catch (error) {
      return { ok: false, why: `the name does not resolve (${/** @type {NodeJS.ErrnoException} */ (error).code ?? 'error'})` };
    }
    let why = 'the name has no address';
    for (const address of addresses) {
      const refusal = policy.refuses(address, bare);
      if (refusal === undefined) return { ok: true, address };
      why = refusal;
    }
    return { ok: false, why };
  };

  return { resolveTarget, cancel: () => resolver.cancel() };
}
