/**
 * The transport's side of the shared write budget (src/registry/rate-limiter.ts `withWritePermits`,
 * src/registry/transport.ts), against the MockAgent registry double: under permits, every write the
 * client sends takes one permit first (the lookups of a create take none) and the process's own write
 * bucket is bypassed; a permit wait that is aborted fails the call as not sent; a write that reaches
 * its connection after its permit's `sendBy` is not sent, and asks again handing the permit back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RegistryClient } from '../../src/registry/client.js';
import { RegistryAbortedError } from '../../src/registry/errors.js';
import {
  clearRateLimiters,
  currentWritePermits,
  type MissedWrite,
  type WritePermit,
  withWritePermits,
} from '../../src/registry/rate-limiter.js';
import { DEFAULT_ACCOUNT, startSimulator } from '../../src/simulator/index.js';
import { MockRegistry, mockRegistryClient } from '../registry/support/mock-registry.js';
import { brandRegistrationFor } from '../support/brand-fixtures.js';

const registries: MockRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.agent.close()));
  clearRateLimiters();
});

const brandOrder = brandRegistrationFor;

describe('writes under shared permits', () => {
  it('takes one permit per write, none per read, and bypasses the process bucket', async () => {
    const registry = new MockRegistry().listen();
    registries.push(registry);
    // A process bucket of one write per minute: had the writes used it, the second would wait.
    const client = mockRegistryClient(registry, {
      rateLimits: { getsPerSecond: 20, writesPer10Seconds: 1, writeWindowMs: 60_000 },
    });
    const taken: string[] = [];
    const permits = {
      acquire: async () => {
        taken.push(registry.requests.map((r) => `${r.method} ${r.path}`).join(','));
        return undefined;
      },
    };
    await withWritePermits(permits, async () => {
      expect(currentWritePermits()).toBe(permits);
      await client.registerBrand(brandOrder('ref-1'));
      await client.registerBrand(brandOrder('ref-2'));
    });
    expect(currentWritePermits()).toBeUndefined();
    const writes = registry.requests.filter((r) => r.method !== 'GET');
    expect(writes).toHaveLength(2);
    expect(registry.requests.filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(2);
    // One permit per write, each taken before its write went out.
    expect(taken).toHaveLength(2);
    expect(taken[0]).not.toContain('POST');
    expect(taken[1]!.split(',').filter((c) => c.startsWith('POST'))).toHaveLength(1);
  });

  it('fails a write whose permit wait is aborted as not sent', async () => {
    const registry = new MockRegistry().listen();
    registries.push(registry);
    const client = mockRegistryClient(registry);
    const controller = new AbortController();
    const permits = {
      acquire: (signal?: AbortSignal) =>
        new Promise<undefined>((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort();
        }),
    };
    const error = await withWritePermits(permits, () =>
      client.updateBrand('B000001', { email: 'ops@acme.example' }, { signal: controller.signal }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryAbortedError);
    expect((error as RegistryAbortedError).mayHaveCommitted).toBe(false);
    expect(registry.requests.filter((r) => r.method !== 'GET')).toHaveLength(0);
  });

  it('does not send a write whose permit expired before it met its connection, and hands it back', async () => {
    // The simulator on loopback and the client's own pools: the deadline is checked at the socket.
    const sim = await startSimulator({ host: '127.0.0.1', port: 0, rateLimits: false });
    const client = new RegistryClient({
      environment: 'local',
      baseUrl: sim.apiBaseUrl,
      apiKey: DEFAULT_ACCOUNT.apiKey,
      apiSecret: DEFAULT_ACCOUNT.apiSecret,
      rateLimits: false,
    });
    try {
      const asked: (MissedWrite | undefined)[] = [];
      const permits = {
        acquire: async (_signal?: AbortSignal, missed?: MissedWrite): Promise<WritePermit> => {
          asked.push(missed);
          const now = Date.now();
          // The first permit's deadline has passed already (as after a long wait for a connection).
          return asked.length === 1
            ? { instant: now - 500, sendBy: now - 400 }
            : { instant: now, sendBy: now + 1_000 };
        },
      };
      await withWritePermits(permits, () => client.registerBrand(brandOrder('ref-late')));
      expect(asked).toHaveLength(2);
      expect(asked[0]).toBeUndefined();
      expect(asked[1]?.lateByMs).toBeGreaterThanOrEqual(400);
      expect((await client.listBrands({ referenceId: 'ref-late' })).records).toHaveLength(1);
    } finally {
      await client.close();
      await sim.close();
    }
  });
});
