/**
 * Accounts kept apart (issue 35, item 2): references are unique only within one registry account, so
 * the same reference ordered under two accounts is two workflows (`brand/{account}/{reference}`),
 * each registering with its own account's credentials: each account's registry holds the brand once,
 * and a start under one account never joins the other's workflow. Steering by `{account, reference}`
 * reaches that account's workflow; a bare reference held by both is refused naming `account`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryClientOptions } from '../../src/config/accounts.js';
import { getBrandStatus, startBrandOrder, waitForBrandPhase } from '../../src/orders/brand-client.js';
import { RegistryClient } from '../../src/registry/client.js';
import type { SimulatorAccount } from '../../src/simulator/index.js';
import { brandOrder } from '../cli/support.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';

const simAccounts: Record<string, SimulatorAccount> = {
  staging: { cspId: 'CSPSTAGE', apiKey: 'staging-key', apiSecret: 'staging-secret' },
  production: { cspId: 'CSPPROD', apiKey: 'production-key', apiSecret: 'production-secret' },
};

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ accounts: simAccounts });
}, 120_000);

afterAll(() => stack?.close());

/** The brands with this referenceId at the registry, as `account` sees them (its own credentials). */
async function brandsAt(account: string, reference: string) {
  const registry = new RegistryClient(registryClientOptions(stack.accounts[account]!, { rateLimits: false }));
  return (await registry.listBrands({ referenceId: reference })).records;
}

describe('the same reference under two accounts', () => {
  it('is two workflows, each registering with its own account only', async () => {
    const reference = `shared-${randomUUID().slice(0, 8)}`;
    const staging = await startBrandOrder(stack.client, brandOrder(reference, 'staging'));
    const production = await startBrandOrder(stack.client, brandOrder(reference, 'production'));
    expect(staging.started).toBe(true);
    expect(production.started).toBe(true);
    expect(production.handle.workflowId).not.toBe(staging.handle.workflowId);
    expect([staging.handle.workflowId, production.handle.workflowId]).toEqual([
      `brand/staging/${reference}`,
      `brand/production/${reference}`,
    ]);

    for (const account of ['staging', 'production']) {
      const status = await waitForBrandPhase(stack.client, { account, reference }, 'ready', 60_000);
      expect(status.brandId).toBeDefined();
      // Registered once in each account, with that account's credentials (the simulator keeps each
      // account's brands apart).
      const records = await brandsAt(account, reference);
      expect(records.map((r) => r.brandId)).toEqual([status.brandId]);
    }
    const [a, b] = await Promise.all([
      getBrandStatus(stack.client, { account: 'staging', reference }),
      getBrandStatus(stack.client, { account: 'production', reference }),
    ]);
    expect(a.brandId).not.toBe(b.brandId);

    // Ordered again under one account: that account's workflow, nothing new.
    const again = await startBrandOrder(stack.client, brandOrder(reference, 'production'));
    expect(again.handle.workflowId).toBe(`brand/production/${reference}`);
    expect(await brandsAt('production', reference)).toHaveLength(1);

    // A bare reference both accounts hold names no single workflow: refused naming the account.
    await expect(getBrandStatus(stack.client, reference)).rejects.toThrow(/account/);
  }, 120_000);
});
