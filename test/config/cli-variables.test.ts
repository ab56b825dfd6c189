/**
 * TCR_INGRESS_URL (docs/operations.md, docs/cli.md): where `tcr events tail` reads the ingress's
 * counters when --ingress is not given. Set, the counters of the ingress at that URL are shown; unset,
 * none are; --ingress wins over it; a value that is not an http(s) URL is a usage error.
 * Temporal is a stand-in with no parked events: only the counters are under test.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tcr } from '../cli/support.js';

/** A client whose visibility list is empty (no parked events workflow). */
const noParkedEvents = {
  workflow: {
    list: async function* () {},
  },
} as unknown as Client;

/** A stand-in ingress internal listener serving `received` as its events-received counter. */
async function metricsServer(received: number): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (request.url !== '/metrics') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(
      `# TYPE tcr_ingress_events_received_total counter\ntcr_ingress_events_received_total ${received}\n`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let fromEnv: { server: Server; url: string };
let fromFlag: { server: Server; url: string };
beforeAll(async () => {
  fromEnv = await metricsServer(7);
  fromFlag = await metricsServer(11);
});
afterAll(async () => {
  for (const { server } of [fromEnv, fromFlag]) await new Promise((resolve) => server.close(resolve));
});

const counters = async (argv: string[], env: Record<string, string>) => {
  const run = await tcr(['events', 'tail', '--json', ...argv], { env, client: noParkedEvents });
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { counters: Record<string, number> | null }).counters;
};

describe('TCR_INGRESS_URL', () => {
  it('set: tcr events tail shows the counters of the ingress there; unset: none', async () => {
    expect(await counters([], { TCR_INGRESS_URL: fromEnv.url })).toEqual({
      tcr_ingress_events_received_total: 7,
    });
    expect(await counters([], {})).toBeNull();
  });

  it('--ingress wins over it', async () => {
    expect(await counters(['--ingress', fromFlag.url], { TCR_INGRESS_URL: fromEnv.url })).toEqual({
      tcr_ingress_events_received_total: 11,
    });
  });

  it('a value that is not an http(s) URL is a usage error', async () => {
    const run = await tcr(['events', 'tail'], {
      env: { TCR_INGRESS_URL: 'ingress:8471' },
      client: noParkedEvents,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--ingress must be an http(s) URL, got 'ingress:8471'");
  });
});
