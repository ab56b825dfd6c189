/**
 * Probed ports (src/stack/ports.ts): servers that must be told their port before they start (the
 * Temporal CLI dev server, the ingress whose webhook URL names its port) are started on a probed
 * port, and started again on a fresh one when another process took it in between. Here another
 * process "takes" the port: the first probe hands out a port this test holds.
 */
import net from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseIngressConfig } from '../../src/ingress/config.js';
import { type RunningIngress, startIngress } from '../../src/ingress/server.js';
import { createIngressClient } from '../../src/ingress/temporal.js';
import { freePort, isAddressInUse, startOnProbedPorts } from '../../src/stack/ports.js';

const held: net.Server[] = [];
const started: RunningIngress[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((ingress) => ingress.close()));
  await Promise.all(held.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

/** A loopback port held by "another process" for the rest of the test. */
async function takenPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  held.push(server);
  return (server.address() as net.AddressInfo).port;
}

/** The real ingress on `port` (Temporal is never called). */
function ingressOn(port: number): Promise<RunningIngress> {
  const config = parseIngressConfig({
    TCR_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/registry`,
    TCR_WEBHOOK_SECRETS: 'ports-test-secret-0123456789abcdefgh',
    TCR_INGRESS_ACCOUNTS: 'acme',
    TCR_INGRESS_PORT: String(port),
    TCR_INGRESS_INTERNAL_LISTEN: 'off',
  });
  return startIngress({
    config,
    client: createIngressClient({ temporalAddress: '127.0.0.1:1', temporalNamespace: 'default' }),
    logger: pino({ level: 'silent' }),
  });
}

describe('startOnProbedPorts', () => {
  it('starts the ingress again on a fresh port when the probed one was taken before it bound it', async () => {
    const taken = await takenPort();
    const probes = [taken];
    const tried: number[] = [];
    const retried: unknown[] = [];
    const ingress = await startOnProbedPorts({
      probed: true,
      retryable: isAddressInUse,
      onRetry: (error) => retried.push(error),
      start: async () => {
        const port = probes.shift() ?? (await freePort());
        tried.push(port);
        return ingressOn(port);
      },
    });
    started.push(ingress);
    expect(tried).toHaveLength(2);
    expect(tried[0]).toBe(taken);
    expect(retried.map(isAddressInUse)).toEqual([true]);
    expect(Number(new URL(ingress.url).port)).toBe(tried[1]);
  });

  it('gives up after three tries, with the last error', async () => {
    const taken = await takenPort();
    let tries = 0;
    const failure = await startOnProbedPorts({
      probed: true,
      retryable: isAddressInUse,
      start: async () => {
        tries++;
        return ingressOn(taken);
      },
    }).catch((error: unknown) => error);
    expect(tries).toBe(3);
    expect(isAddressInUse(failure)).toBe(true);
  });

  it('does not retry a fixed port (the operator chose it), nor another failure', async () => {
    const taken = await takenPort();
    let tries = 0;
    const fixed = await startOnProbedPorts({
      probed: false,
      retryable: isAddressInUse,
      start: async () => {
        tries++;
        return ingressOn(taken);
      },
    }).catch((error: unknown) => error);
    expect(isAddressInUse(fixed)).toBe(true);
    expect(tries).toBe(1);

    tries = 0;
    const other = await startOnProbedPorts({
      probed: true,
      retryable: isAddressInUse,
      start: async () => {
        tries++;
        throw new Error('configuration refused');
      },
    }).catch((error: unknown) => error);
    expect(String(other)).toContain('configuration refused');
    expect(tries).toBe(1);
  });
});

describe('isAddressInUse', () => {
  it("knows Node's EADDRINUSE and the Temporal Runtime's Prometheus exporter's message, nothing else", () => {
    expect(isAddressInUse(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }))).toBe(true);
    // As Runtime.install throws it when the exporter's port is taken (seen with a held port).
    const exporter = new Error(
      'Failed to start prometheus metrics exporter: Address already in use (os error 98)',
    );
    expect(isAddressInUse(exporter)).toBe(true);
    expect(isAddressInUse(Object.assign(new Error('listen EACCES'), { code: 'EACCES' }))).toBe(false);
    expect(isAddressInUse(new Error('Temporal dev server exited'))).toBe(false);
  });
});
