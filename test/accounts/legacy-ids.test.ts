/**
 * Upgrading to account-scoped ids (issue 35, item 2; docs/operations.md, "Upgrading: account-scoped
 * ids"): a brand workflow an earlier release opened under `brand/{reference}` keeps working. Status
 * and steering by `{account, reference}` (and a bare reference) find it when no account-scoped one
 * exists, ordering it again under its account answers it (nothing new started), an event verified
 * for its account is routed to it; for another account it is none of theirs: a new order starts that
 * account's own workflow and its events are parked under that account.
 */
import { randomUUID } from 'node:crypto';
import { TypedSearchAttributes } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRAND_WORKFLOW_TYPE } from '../../src/contracts/brand.js';
import { AccountKey, BrandReferenceKey, PhaseKey } from '../../src/contracts/search-attributes.js';
import type { RegistryEventDelivery } from '../../src/contracts/signals.js';
import { EventRouter } from '../../src/ingress/router.js';
import {
  acknowledgeBrandAction,
  getBrandStatus,
  startBrandOrder,
  waitForBrandPhase,
} from '../../src/orders/brand-client.js';
import { parseBrandOrder } from '../../src/orders/brand-order.js';
import type { SimulatorAccount } from '../../src/simulator/index.js';
import { brandOrder } from '../cli/support.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';

const simAccounts: Record<string, SimulatorAccount> = {
  acme: { cspId: 'CSPACME', apiKey: 'acme-key', apiSecret: 'acme-secret' },
  other: { cspId: 'CSPOTHER', apiKey: 'other-key', apiSecret: 'other-secret' },
};

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ accounts: simAccounts });
}, 120_000);

afterAll(() => stack?.close());

/** What an earlier release's startBrandOrder did: `brand/{reference}`, TcrAccount set. */
async function startLegacyBrand(reference: string, account: string) {
  const order = parseBrandOrder(brandOrder(reference, account));
  return stack.client.workflow.start(BRAND_WORKFLOW_TYPE, {
    workflowId: `brand/${reference}`,
    taskQueue: stack.workflowTaskQueue,
    args: [{ reference, account, registration: order.registration }],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: BrandReferenceKey, value: reference },
      { key: AccountKey, value: account },
      { key: PhaseKey, value: 'registering' },
    ]),
  });
}

const delivery = (reference: string): RegistryEventDelivery => ({
  event: { eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandReferenceId: reference } as never,
  receivedAt: new Date().toISOString(),
  deliveryId: randomUUID(),
});

describe('workflows under legacy ids', () => {
  it('are found, steered, ordered again and routed to for their own account only', async () => {
    const reference = `legacy-${randomUUID().slice(0, 8)}`;
    const legacy = await startLegacyBrand(reference, 'acme');

    const status = await waitForBrandPhase(stack.client, { account: 'acme', reference }, 'ready', 60_000);
    expect(status.brandId).toBeDefined();
    // Steered by {account, reference}: the legacy workflow answers (its validator refuses the key).
    const refused = await acknowledgeBrandAction(
      stack.client,
      { account: 'acme', reference },
      'no-such-key',
    ).then(
      () => undefined,
      (error: Error & { cause?: Error }) => error.cause?.message,
    );
    expect(refused).toMatch(/no needs-action entry no-such-key/);

    // Ordered again under its account: answered by the legacy workflow, nothing started.
    const again = await startBrandOrder(stack.client, brandOrder(reference, 'acme'));
    expect({ started: again.started, workflowId: again.handle.workflowId }).toEqual({
      started: false,
      workflowId: legacy.workflowId,
    });

    // An event verified for acme reaches it; one for another account does not.
    const router = new EventRouter({
      client: stack.client,
      parkedTaskQueue: stack.workflowTaskQueue,
      parkedRetentionMs: 86_400_000,
    });
    expect(await router.route(delivery(reference), 'acme')).toMatchObject({
      action: 'signalled',
      workflowId: `brand/${reference}`,
    });
    expect(await router.route(delivery(reference), 'other')).toMatchObject({
      action: 'parked',
      workflowId: `parked/other/brand-ref/${reference}`,
    });

    // Another account's order of the same reference is its own workflow, never the legacy one.
    const theirs = await startBrandOrder(stack.client, brandOrder(reference, 'other'));
    expect({ started: theirs.started, workflowId: theirs.handle.workflowId }).toEqual({
      started: true,
      workflowId: `brand/other/${reference}`,
    });
    const otherStatus = await waitForBrandPhase(
      stack.client,
      { account: 'other', reference },
      'ready',
      60_000,
    );
    expect(otherStatus.brandId).not.toBe(status.brandId);
    // And acme's status is still the legacy workflow's.
    expect((await getBrandStatus(stack.client, { account: 'acme', reference })).brandId).toBe(status.brandId);
  }, 120_000);
});
