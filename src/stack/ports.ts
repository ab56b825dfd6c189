import net from 'node:net';
import { messageOf } from '../common/error-message.js';

/**
 * A port that was free a moment ago on 127.0.0.1, for a server whose port must be known before it
 * starts and that cannot be handed a bound socket: the Temporal CLI dev server (a separate process
 * that takes `--port` and `--ui-port` numbers), and the ingress, whose webhook URL (signed by the
 * registry) names its port. Our own servers that need no number up front (the codec server, the
 * simulator, the ingress's internal listener) bind port 0 instead. Between this probe and the
 * server's bind, another process may take the port: start such servers through
 * `startOnProbedPorts`, which tries again on fresh ports.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `port`, or a free one when it is 0. */
export function portOrFree(port: number): Promise<number> {
  return port === 0 ? freePort() : Promise.resolve(port);
}

/**
 * "Address already in use" (a probed port taken before the server bound it): Node's EADDRINUSE, or
 * the message of the Temporal Runtime's Prometheus exporter ("... (os error 98)"), which has no code.
 */
export function isAddressInUse(error: unknown): boolean {
  if ((error as { code?: unknown } | undefined)?.code === 'EADDRINUSE') return true;
  return /address already in use/i.test(messageOf(error));
}

/**
 * Runs `start` (which probes its ports itself, with `freePort`) up to `attempts` times (default 3)
 * while it fails with an error `retryable` accepts: a probed port taken by another process between
 * the probe and the bind. Fixed ports (`probed` false) are not retried: the error is the operator's.
 */
export async function startOnProbedPorts<T>(opts: {
  probed: boolean;
  start: () => Promise<T>;
  retryable: (error: unknown) => boolean;
  attempts?: number;
  onRetry?: (error: unknown) => void;
}): Promise<T> {
  const attempts = opts.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await opts.start();
    } catch (error) {
      if (!opts.probed || attempt >= attempts || !opts.retryable(error)) throw error;
      opts.onRetry?.(error);
    }
  }
}

/** Resolves once a TCP connection to host:port succeeds, or rejects after `timeoutMs`. */
export async function waitForTcp(
  host: string,
  port: number,
  timeoutMs: number,
  isAlive: () => boolean,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (!isAlive()) throw new Error(`the process that should listen on ${host}:${port} exited`);
    if (Date.now() > deadline)
      throw new Error(`nothing accepted connections on ${host}:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
