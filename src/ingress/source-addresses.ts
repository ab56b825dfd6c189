import { BlockList, isIP } from 'node:net';

/**
 * Source-address rules: an optional allow-list of the registry's published webhook addresses, and
 * the proxies whose `X-Forwarded-For` is believed. Forwarded headers are never trusted by default.
 */

/** Parses "10.0.0.0/8, 192.0.2.7, 2001:db8::/32" items into a BlockList; throws naming the bad item. */
export function parseCidrList(items: readonly string[]): BlockList {
  const list = new BlockList();
  for (const item of items) {
    const [address, prefix, extra] = item.split('/');
    const family = address ? isIP(address) : 0;
    if (!address || family === 0 || extra !== undefined) {
      throw new Error(`"${item}" is not an IP address or CIDR`);
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const bits = Number(prefix);
    if (!/^\d+$/.test(prefix) || bits > (family === 6 ? 128 : 32)) {
      throw new Error(`"${item}" has an invalid prefix length`);
    }
    list.addSubnet(address, bits, type);
  }
  return list;
}

/** An IPv4-mapped IPv6 address ("::ffff:127.0.0.1") as plain IPv4; other addresses unchanged. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

export function listContains(list: BlockList, address: string): boolean {
  const normalized = normalizeAddress(address);
  const family = isIP(normalized);
  if (family === 0) return false;
  return list.check(normalized, family === 6 ? 'ipv6' : 'ipv4');
}

export class SourceAddressPolicy {
  private readonly allow: BlockList | undefined;
  private readonly proxies: BlockList | undefined;

  constructor(allow: readonly string[], trustedProxies: readonly string[]) {
    this.allow = allow.length > 0 ? parseCidrList(allow) : undefined;
    this.proxies = trustedProxies.length > 0 ? parseCidrList(trustedProxies) : undefined;
  }

  /**
   * The client address: the socket peer, unless the peer is a trusted proxy, in which case
   * X-Forwarded-For is walked from the right, skipping trusted proxies, and the first untrusted
   * hop is the client.
   */
  clientAddress(peer: string, forwardedFor: string | string[] | undefined): string {
    const socketPeer = normalizeAddress(peer);
    if (!this.proxies || !listContains(this.proxies, socketPeer) || forwardedFor === undefined)
      return socketPeer;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((h) => normalizeAddress(h.trim()))
      .filter((h) => h.length > 0);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) return hop; // garbage: not an address, so never allowed
      if (!listContains(this.proxies, hop)) return hop;
    }
    return hops[0] ?? socketPeer;
  }

  allowed(clientAddress: string): boolean {
    return this.allow === undefined || listContains(this.allow, clientAddress);
  }

  /** False when no allow-list is configured (anyone may POST). */
  get allowListOn(): boolean {
    return this.allow !== undefined;
  }

  isTrustedProxy(peer: string): boolean {
    return this.proxies !== undefined && listContains(this.proxies, peer);
  }
}

/** True for "localhost", 127.0.0.0/8 and ::1 (also bracketed or IPv4-mapped). */
export function isLoopbackHost(host: string): boolean {
  const h = normalizeAddress(host.replace(/^\[|\]$/g, '').toLowerCase());
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * The key a source is counted under for connection caps and the rate limit: an IPv4 address (also
 * IPv4-mapped) as itself, an IPv6 address by its /64 (one subscriber's allocation: a client owning a
 * /64 has 2^64 addresses to spread over), anything else as given.
 */
export function sourceKey(address: string): string {
  const normalized = normalizeAddress(address);
  if (isIP(normalized) !== 6) return normalized;
  const [head = '', tail] = normalized.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail ("::1.2.3.4") counts as two groups; it falls in the low 64 bits either way.
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (g.includes('.') ? g : Number.parseInt(g, 16).toString(16)))
    .join(':')}::/64`;
}
