import type net from 'node:net';
import { listenOnLoopback, pipeTo } from './tcp-pipe.js';

/**
 * A TCP proxy (in front of Temporal, or of an ingress) that can be taken down and up again. It binds
 * its port once (port 0, in `listen()`) and keeps the listening socket until `close()`: while down it
 * cuts every open connection and resets each new one at once, so nothing else can take the port in
 * between. Its port can be handed out before the target exists (`forwardTo` then `up`): a webhook
 * URL on the proxy's port, for an ingress that listens on port 0.
 */
export class SwitchableProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private isUp = false;
  /** Connections reset because the proxy was down. */
  refused = 0;
  port = 0;
  constructor(private target: { host: string; port: number }) {}

  /** Where new connections go from now on. */
  forwardTo(target: { host: string; port: number }): void {
    this.target = target;
  }

  /** Binds a free loopback port (once) and starts down: connections are reset until `up()`. */
  async listen(): Promise<number> {
    if (this.server) return this.port;
    ({ server: this.server, port: this.port } = await listenOnLoopback((inbound) => this.accept(inbound)));
    return this.port;
  }

  /** Forwards connections (binding the port first if `listen()` was not called). */
  async up(): Promise<void> {
    await this.listen();
    this.isUp = true;
  }

  /** Cuts every open connection and resets new ones; the port stays bound. */
  async down(): Promise<void> {
    this.isUp = false;
    for (const s of this.sockets) s.destroy();
  }

  /** Releases the port. */
  async close(): Promise<void> {
    await this.down();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(inbound: net.Socket): void {
    if (!this.isUp) {
      this.refused++;
      inbound.resetAndDestroy();
      return;
    }
    pipeTo(inbound, this.target, this.sockets);
  }
}
