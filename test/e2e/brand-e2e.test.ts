/**
 * End to end on the dev server: the registry simulator, the real worker wiring (createWorkers with a
 * prebuilt bundle, default task queues), the ingress subscribed to the simulator's signed webhooks,
 * and an order started through startBrandOrder. The contact verification done at the simulator
 * reaches the workflow as a webhook (its reconciliation polls are set an hour apart), and the brand is found by
 * a visibility query on its search attributes, as an operator would in the Web UI.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { startBrandOrder } from '../../src/orders/index.js';
import { startTestStack, type TestStack } from '../fixtures/test-stack.js';
import {
  endTrackedWorkflows,
  publicProfitRegistration,
  waitForStatus,
} from '../fixtures/workflow-harness.js';

const ACCOUNT = 'acme-e2e';

describe('brand order end to end (dev server, simulator, createWorkers, ingress)', () => {
  let stack: TestStack;

  beforeAll(async () => {
    // The spec's rate limits, real time.
    stack = await startTestStack({
      account: ACCOUNT,
      webhooks: ['BRAND', 'VETTING'],
    });
  }, 120_000);

  afterAll(() => stack?.close());

  it('a PUBLIC_PROFIT order reaches ready, woken by the webhook, and is found by its search attributes', async () => {
    const reference = `e2e-${randomUUID().slice(0, 8)}`;
    const brand = { ...publicProfitRegistration(), businessContactEmail: 'cfo.NOVERIFY@acme.example' };
    // Its reconciliation polls are an hour apart, so only the webhook can wake it within the test,
    // however slow the machine (the default first poll, a minute away, could beat a slow webhook).
    const hour = 3_600_000;
    const { handle } = await startBrandOrder(
      stack.client,
      { reference, account: ACCOUNT, brand },
      { workflowOptions: { pendingPoll: { initialMs: hour, maxMs: hour } } },
    );
    try {
      const waiting = await waitForStatus(
        handle,
        (s) => s.phase === 'awaiting-contact-verification' && s.waitingFor?.nextPollAt !== undefined,
        30_000,
      );
      const brandId = waiting.brandId!;
      await stack.simulator.control.verifyContact(brandId);
      await stack.simulator.control.waitForDelivery(
        (d) =>
          d.outcome === 'DELIVERED' &&
          d.eventType === 'BRAND_CONTACT_VERIFIED' &&
          d.event.brandId === brandId,
        { timeoutMs: 10_000 },
      );
      const ready = await waitForStatus(handle, (s: BrandStatus) => s.phase === 'ready', 20_000);
      const transition = ready.audit.entries.find((e) => e.event === 'phase' && e.to === 'ready');
      expect(transition?.cause).toBe('webhook');
      expect(
        ready.audit.entries.some((e) => e.cause === 'webhook' && e.detail === 'BRAND_CONTACT_VERIFIED'),
      ).toBe(true);
      expect(stack.ingress!.metrics.snapshot().rejected).toEqual({});

      const query = `TcrBrandId = "${brandId}" AND TcrPhase = "ready" AND TcrAccount = "${ACCOUNT}"`;
      const deadline = Date.now() + 15_000;
      let found: string[] = [];
      while (Date.now() < deadline) {
        found = [];
        for await (const w of stack.client.workflow.list({ query })) found.push(w.workflowId);
        if (found.length > 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(found).toEqual([handle.workflowId]);
      expect(handle.workflowId).toBe(`brand/${ACCOUNT}/${reference}`);
    } finally {
      await endTrackedWorkflows([handle]);
    }
  }, 90_000);
});
