// @ts-check
// Which addresses a networked skill may reach through the egress proxy: public ones only. Loopback and the host's
// own interface addresses are refused always; private and other non-public ranges unless an operator allows a
// range (`10.20.0.0/16`) or a host name (`jira.corp.example`, `*.corp.example`) explicitly (`egressAllow`).
// Plain JavaScript: the egress proxy process (egressProcess.mjs) loads it without a TypeScript loader.
import { BlockList, isIP } from 'node:net';
import os from 'node:os';

/** Ranges that are not the public internet (RFC 6890 and friends), refused unless allowed. */
const NON_PUBLIC_V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24',
  '224.0.0.0/4', '240.0.0.0/4',
];
const NON_PUBLIC_V6 = [
  // IPv4-mapped addresses (::ffff:a.b.c.d) need no range here: BlockList checks them as the IPv4 address.
  '::/128', '::1/128', '64:ff9b::/96', '64:ff9b:1::/48', '100::/64', '2001::/23', '2001:db8::/32',
  '2002::/16', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
];
const LOOPBACK = ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128'];

/** A host name `egressAllow` may hold: DNS labels, optionally `*.` in front for every name under it. */
const HOST_NAME = /^(\*\.)?(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/**
 * @typedef {object} AddressPolicy
 * @property {(address: string, name?: string) => string | undefined} refuses Why `address` (an IP literal, reached
 *   as `name` when a name was asked for) may not be reached, or undefined when it may.
 */

/**
 * A CIDR (`10.0.0.0/8`, `fd00::/8`) as address, prefix and family, or an error naming it.
 * @param {string} cidr
 * @returns {{ address: string; prefix: number; family: 'ipv4' | 'ipv6' } | { error: string }}
 */
export function parseCidr(cidr) {
  const [address = '', prefixText, extra] = cidr.trim().split('/');
  const version = isIP(address);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (version === 0 || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
    return { error: `"${cidr}" is not an address range such as 10.0.0.0/8 or fd00::/8` };
  }
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * `egressAllow` entries split into ranges and host names, or the first entry that is neither.
 * @param {readonly string[]} entries
 * @returns {{ ranges: string[]; hosts: string[] } | { error: string }}
 */
export function parseEgressAllow(entries) {
  /** @type {string[]} */
  const ranges = [];
  /** @type {string[]} */
  const hosts = [];
  for (const raw of entries) {
    const entry = raw.trim();
    const looksLikeAddress = entry.includes('/') || isIP(entry) !== 0 || entry.includes(':');
    if (looksLikeAddress) {
      const parsed = parseCidr(entry);
      if ('error' in parsed) return parsed;
      ranges.push(entry);
    } else if (HOST_NAME.test(entry)) hosts.push(entry.toLowerCase());
    else return { error: `"${raw}" is neither an address range (10.20.0.0/16) nor a host name (jira.corp.example, *.corp.example)` };
  }
  return { ranges, hosts };
}

/** @param {readonly string[]} cidrs */
function listOf(cidrs) {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const parsed = parseCidr(cidr);
    if ('error' in parsed) throw new RangeError(parsed.error);
    list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list;
}

/**
 * An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is its IPv4 address: it reaches the same host.
 * @param {string} address
 * @returns {{ address: string; family: 'ipv4' | 'ipv6' } | undefined}
 */
function normalise(address) {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return { address: mapped[1], family: 'ipv4' };
  const version = isIP(address);
  if (version === 0) return undefined;
  return { address, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Whether `name` is one of `hosts` (exactly, or under a `*.` entry).
 * @param {readonly string[]} hosts
 * @param {string} name
 */
function nameAllowed(hosts, name) {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return hosts.some((host) => (host.startsWith('*.') ? lower.endsWith(host.slice(1)) : lower === host));
}

/**
 * The policy. `allow` holds `egressAllow` entries: ranges let through although non-public, and host names whose
 * addresses are let through although non-public; never loopback nor the host's own addresses, which are read
 * afresh at each check since interfaces come and go. With `listedMayBeLocal` (the bot's own fetches for installs,
 * where the operator lists what they mean: a git server on this host), a listed range or name is let through even
 * when it is loopback or the host's own; skill processes never get that.
 * @param {readonly string[]} [allow]
 * @param {() => string[]} [hostAddresses]
 * @param {{ listedMayBeLocal?: boolean }} [options]
 * @returns {AddressPolicy}
 */
export function addressPolicy(allow = [], hostAddresses = ownAddresses, options = {}) {
  const parsed = parseEgressAllow(allow);
  if ('error' in parsed) throw new RangeError(parsed.error);
  const nonPublic = listOf([...NON_PUBLIC_V4, ...NON_PUBLIC_V6]);
  const loopback = listOf(LOOPBACK);
  const allowed = listOf(parsed.ranges);
  return {
    refuses(raw, name) {
      const target = normalise(raw);
      if (target === undefined) return `"${raw}" is not an IP address`;
      if (options.listedMayBeLocal === true && (allowed.check(target.address, target.family) || (name !== undefined && nameAllowed(parsed.hosts, name)))) return undefined;
      if (loopback.check(target.address, target.family)) return `${raw} is the host's loopback`;
      // A BlockList, not string equality: an address has many spellings (`::ffff:c000:202` is 192.0.2.2).
      const own = new BlockList();
      for (const address of hostAddresses().map(normalise)) if (address !== undefined) own.addAddress(address.address, address.family);
      if (own.check(target.address, target.family)) return `${raw} is one of the host's own addresses`;
      if (!nonPublic.check(target.address, target.family)) return undefined;
      if (allowed.check(target.address, target.family)) return undefined;
      if (name !== undefined && nameAllowed(parsed.hosts, name)) return undefined;
      return `${raw} is in a private or reserved range`;
    },
  };
}

/**
 * Every address of the host's interfaces (link-local scope ids dropped).
 * @returns {string[]}
 */
export function ownAddresses() {
  return Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((entry) => entry.address.replace(/%.*$/, ''));
}
