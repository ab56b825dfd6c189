/**
 * The order API's status read (src/orders/order-client.ts) is bounded: a workflow whose query goes
 * unanswered (no worker polls its task queue; on the time-skipping server, a run continuing as new)
 * gives the caller a StatusQueryTimeoutError naming the workflow after its attempts, not a wait for
 * ever. The status read the campaign-lifecycle continue-as-new case makes hung there, 3 times in 4.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getBrandStatus, startBrandOrder } from '../../src/orders/brand-client.js';
import {
  STATUS_QUERY_ATTEMPT_MS,
  STATUS_QUERY_ATTEMPTS,
  StatusQueryTimeoutError,
} from '../../src/orders/order-client.js';
import { brandRegistration, uniqueReference } from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

it('a status query nobody answers ends in a StatusQueryTimeoutError after its attempts', async () => {
  const reference = uniqueReference('unanswered');
  const account = 'acme';
  const { handle } = await startBrandOrder(
    env.client,
    { reference, account, brand: brandRegistration() },
    { taskQueue: `nobody-polls-${reference}` },
  );
  try {
    const started = Date.now();
    const error = await getBrandStatus(env.client, { account, reference }).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(error).toBeInstanceOf(StatusQueryTimeoutError);
    expect((error as Error).message).toContain(handle.workflowId);
    expect(took).toBeGreaterThanOrEqual(STATUS_QUERY_ATTEMPTS * STATUS_QUERY_ATTEMPT_MS - 500);
    expect(took).toBeLessThan(STATUS_QUERY_ATTEMPTS * STATUS_QUERY_ATTEMPT_MS + 10_000);
  } finally {
    await handle.terminate('test finished').catch(() => undefined);
  }
});
