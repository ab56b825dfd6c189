/** The two pieces every test TCP proxy is made of: a loopback listener and a two-way pipe. */
import net from 'node:net';

/** A server on a free loopback port (port 0: bound once, never probed). */
export async function listenOnLoopback(
  accept: (inbound: net.Socket) => void,
): Promise<{ server: net.Server; port: number }> {
  const server = net.createServer(accept);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return { server, port: (server.address() as net.AddressInfo).port };
}

/**
 * Pipes `inbound` both ways to a new connection to `target`. Both sockets are in `open` until they
 * close, and an error on either ends both.
 */
export function pipeTo(
  inbound: net.Socket,
  target: { host: string; port: number },
  open: Set<net.Socket>,
): void {
  const outbound = net.connect(target.port, target.host);
  for (const s of [inbound, outbound]) {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => {
      inbound.destroy();
      outbound.destroy();
    });
  }
  inbound.pipe(outbound).pipe(inbound);
}
