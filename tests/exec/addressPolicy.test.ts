// Which destinations the egress proxy lets a networked skill reach (the whole proxy runs in egress.test.ts).
import { describe, expect, it } from 'vitest';
import { addressPolicy, parseCidr } from '../../src/exec/addressPolicy.mjs';

const HOST = ['127.0.0.1', '::1', '192.0.2.2', 'fe80::1c2b:3cff:fe4d:5e6f', '10.20.30.1'];
const policy = (allow: string[] = []) => addressPolicy(allow, () => HOST);

describe('the egress address policy', () => {
  it('lets public addresses through, IPv4 and IPv6', () => {
    for (const address of ['1.1.1.1', '8.8.8.8', '151.101.1.69', '2606:4700::1111', '::ffff:8.8.8.8']) expect(policy().refuses(address)).toBeUndefined();
  });

  it('refuses loopback in every spelling, and the host\'s own addresses, whatever is allowed', () => {
    const everything = policy(['0.0.0.0/0', '::/0']);
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '0.0.0.0', '::', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(everything.refuses(address)).toMatch(/loopback/);
    }
    for (const address of ['192.0.2.2', '::ffff:192.0.2.2', '::ffff:c000:202', '10.20.30.1', 'fe80::1c2b:3cff:fe4d:5e6f', 'FE80:0:0:0:1c2b:3cff:fe4d:5e6f']) {
      expect(everything.refuses(address)).toMatch(/host's own addresses/);
    }
  });

  it('refuses private, link-local and reserved ranges by default, and lets an allowed range through', () => {
    for (const address of ['10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '224.0.0.1', 'fd00::1', 'fe80::1', '::ffff:a00:1', '198.51.100.7']) {
      expect(policy().refuses(address)).toMatch(/private or reserved/);
    }
    expect(policy(['10.1.2.0/30']).refuses('10.1.2.2')).toBeUndefined();
    expect(policy(['10.1.2.0/30']).refuses('10.1.2.5')).toMatch(/private or reserved/);
  });

  it('names a malformed range', () => {
    expect(parseCidr('10.0.0.0/33')).toEqual({ error: '"10.0.0.0/33" is not an address range such as 10.0.0.0/8 or fd00::/8' });
    expect(() => addressPolicy(['intra net'])).toThrow(/"intra net" is neither an address range/);
  });

  it('lets a private address through for an allowed host name (exactly, or under *.), never loopback or the host', () => {
    const named = policy(['jira.corp.example', '*.svc.example']);
    expect(named.refuses('10.9.8.7', 'jira.corp.example')).toBeUndefined();
    expect(named.refuses('10.9.8.7', 'JIRA.corp.example.')).toBeUndefined();
    expect(named.refuses('10.9.8.7', 'api.svc.example')).toBeUndefined();
    expect(named.refuses('10.9.8.7', 'other.corp.example')).toMatch(/private or reserved/);
    expect(named.refuses('10.9.8.7')).toMatch(/private or reserved/);
    expect(named.refuses('127.0.0.1', 'jira.corp.example')).toMatch(/loopback/);
    expect(named.refuses('10.20.30.1', 'jira.corp.example')).toMatch(/host's own addresses/);
  });
});
