import type net from 'node:net';
import { listenOnLoopback, pipeTo } from '../support/tcp-pipe.js';

/**
 * A TCP proxy that accepts connections and answers nothing until `up()`: a Temporal that hangs (or a
 * firewall that swallows packets after the handshake), where a gRPC connect neither succeeds nor is
 * refused. On `up()` the connections it holds, and every later one, are forwarded to the target,
 * with whatever the client already sent, so a connect still waiting then succeeds.
 */
export class HangingProxy {
  private server: net.Server | undefined;
  private readonly held = new Set<net.Socket>();
  private readonly sockets = new Set<net.Socket>();
  private target: { host: string; port: number } | undefined;
  /** Connections accepted so far. */
  accepted = 0;
  port = 0;

  async listen(): Promise<number> {
    ({ server: this.server, port: this.port } = await listenOnLoopback((inbound) => this.accept(inbound)));
    return this.port;
  }

  get isUp(): boolean {
    return this.target !== undefined;
  }

  /** Forwards the held connections and every later one to `target`. */
  up(target: { host: string; port: number }): void {
    this.target = target;
    for (const inbound of this.held) this.forward(inbound);
    this.held.clear();
  }

  async close(): Promise<void> {
    for (const s of [...this.held, ...this.sockets]) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(inbound: net.Socket): void {
    this.accepted++;
    inbound.on('error', () => inbound.destroy());
    if (this.target) this.forward(inbound);
    else {
      inbound.pause(); // read nothing: what the client sends waits in the socket until up()
      this.held.add(inbound);
      inbound.on('close', () => this.held.delete(inbound));
    }
  }

  private forward(inbound: net.Socket): void {
    pipeTo(inbound, this.target!, this.sockets);
    inbound.resume();
  }
}
