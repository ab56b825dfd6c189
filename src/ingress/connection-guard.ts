import type { Server, Socket } from 'node:net';
import type { IngressMetrics } from './metrics.js';
import { normalizeAddress, type SourceAddressPolicy } from './source-addresses.js';

/**
 * Caps the connections of the public listener: all together (`server.maxConnections`, Node drops
 * the rest on accept) and per source address, so one slow or hostile client cannot hold every slot
 * the registry needs. Trusted proxies are exempt from the per-address cap (every client arrives
 * through them). Keeps the open-connection gauge.
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
    const address = normalizeAddress(socket.remoteAddress ?? '');
    const exempt = policy.isTrustedProxy(address);
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
