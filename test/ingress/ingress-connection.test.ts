import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngressConnection } from '../../src/ingress/native-connection.js';
import { SwitchableProxy } from '../support/switchable-proxy.js';
import { devServerEnv } from '../support/temporal-env.js';

// The ingress's connection to Temporal, through a proxy that can take Temporal away and bring it back.
describe('IngressConnection', () => {
  let env: TestWorkflowEnvironment;
  let proxy: SwitchableProxy;
  let connection: IngressConnection;

  beforeAll(async () => {
    env = await devServerEnv();
    const [host, port] = env.address.split(':');
    proxy = new SwitchableProxy({ host: host!, port: Number(port) });
    await proxy.listen(); // the port is bound and known; connections are reset until up()
    connection = new IngressConnection({ address: `127.0.0.1:${proxy.port}` });
  });
  afterAll(async () => {
    await connection?.close();
    await proxy?.close();
    await env?.teardown();
  });

  const systemInfo = (deadlineMs: number) =>
    connection.withDeadline(Date.now() + deadlineMs, () => connection.workflowService.getSystemInfo({}));

  it('starts without Temporal, fails calls until it is there, then connects on the next call', async () => {
    await expect(systemInfo(1_000)).rejects.toThrow();
    await proxy.up();
    const info = await systemInfo(5_000);
    expect(info.capabilities).toBeTruthy();
  });

  it('retries a call within its deadline when Temporal is briefly away', async () => {
    await proxy.down();
    const back = setTimeout(() => void proxy.up(), 300);
    const started = Date.now();
    try {
      const info = await systemInfo(4_000);
      expect(info.capabilities).toBeTruthy();
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      clearTimeout(back);
      await proxy.up().catch(() => {});
    }
  });

  it('gives up at the deadline instead of retrying behind it', async () => {
    await proxy.down();
    try {
      const started = Date.now();
      // A gRPC status, whichever one: the cut connection answers unknown or unavailable, and a new
      // one, if the client dials again within 400 ms, is reset by the proxy (unavailable) or runs
      // out of time (deadline exceeded).
      await expect(systemInfo(400)).rejects.toMatchObject({ code: expect.any(Number) });
      // Gave up near its deadline (a bound 5x the old 1.5 s, for a loaded machine): retrying behind it
      // would go on until the proxy is up again, which happens only after this.
      expect(Date.now() - started).toBeLessThan(7_500);
    } finally {
      await proxy.up();
    }
    expect((await systemInfo(5_000)).capabilities).toBeTruthy();
  });

  it('refuses calls once closed', async () => {
    await connection.close();
    await expect(systemInfo(1_000)).rejects.toThrow(/closed/);
  });
});
