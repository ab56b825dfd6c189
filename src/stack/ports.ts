import net from 'node:net';

/** A port that was free a moment ago on 127.0.0.1 (for servers whose port must be known before they start). */
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
