import type { Server, Socket } from 'node:net';
import type { IngressMetrics } from './metrics.js';
import { normalizeAddress, type SourceAddressPolicy, sourceKey } from './source-addresses.js';

/**
 * Caps the connections of the public listener: all together (`server.maxConnections`, Node drops
 * the rest on accept) and per source address, so one slow or hostile client cannot hold every slot
 * the registry needs. A peer outside the allow-list (TCR_INGRESS_ALLOW) is closed on accept, before
 * a byte is read, so it holds no slot while it dawdles over its headers. Trusted proxies are exempt
 * from both (every client arrives through them; the allow-list then applies to the forwarded
 * address, per request). IPv6 peers are counted per /64 (sourceKey). Keeps the open-connection gauge.
 */
export function guardConnections(
  server: Server,
  options: {
    maxConnections: number;
    maxPerAddress: number;
    policy: SourceAddressPolicy;
    metrics: IngressMetrics;
  },
): void {
  const { metrics, policy, maxPerAddress } = options;
  const perAddress = new Map<string, number>();
  server.maxConnections = options.maxConnections;
  server.on('drop', () => metrics.connectionDropped('max_connections'));
  server.on('connection', (socket: Socket) => {
    const peer = normalizeAddress(socket.remoteAddress ?? '');
    const exempt = policy.isTrustedProxy(peer);
    if (!exempt && !policy.allowed(peer)) {
      metrics.connectionDropped('forbidden_source');
      socket.destroy();
      return;
    }
    const address = sourceKey(peer);
    const open = (perAddress.get(address) ?? 0) + 1;
    if (!exempt && open > maxPerAddress) {
      metrics.connectionDropped('max_per_address');
      socket.destroy();
      return;
    }
    perAddress.set(address, open);
    metrics.connectionOpened();
    socket.once('close', () => {
      metrics.connectionClosed();
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left <= 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
}
