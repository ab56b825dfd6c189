/**
 * The example order system on the local stack (issue 38): its fulfilment workflows in namespace
 * `orders` order a brand and a campaign through the Nexus service and complete with the outcome:
 * `running` for a good campaign, `declined` with the partner's reason for the other.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FulfilmentResult } from '../../examples/order-system/workflows.js';
import { EXAMPLE_ORDERS_TASK_QUEUE } from '../../src/contracts/nexus-service.js';
import type { LocalStack } from '../../src/stack/index.js';
import { defaultExamplesDir } from '../../src/stack/options.js';
import { orderSystemWorkflowsPath } from '../../src/stack/order-system.js';
import { startTestLocalStack } from '../stack/example-end-states.js';
import { workflowBundle } from '../support/temporal-env.js';

let stack: LocalStack;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tcr-order-system-'));
  stack = await startTestLocalStack(dataDir, {
    examples: false,
    orderSystem: true,
    progress: false,
    orderSystemBundle: await workflowBundle(orderSystemWorkflowsPath(defaultExamplesDir())),
  });
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const result = (id: string) =>
  stack.orderSystem?.client.workflow.getHandle(id).result() as Promise<FulfilmentResult>;

describe('the example order system through the Nexus service', () => {
  it('completes with running for a good campaign, declined with the reason for the other', async () => {
    expect(stack.orderSystem?.started).toEqual(['fulfilment/acme-alerts', 'fulfilment/acme-promo-declined']);
    const [good, declined] = await Promise.all([
      result('fulfilment/acme-alerts'),
      result('fulfilment/acme-promo-declined'),
    ]);
    expect(good).toMatchObject({
      fulfilled: true,
      brand: { outcome: 'ready', reference: 'orders-acme', account: 'local' },
      campaign: { outcome: 'running', reference: 'orders-acme-alerts' },
    });
    expect(declined).toMatchObject({
      fulfilled: false,
      campaign: { outcome: 'declined', phase: 'share-declined' },
    });
    expect(declined.why).toMatch(/DECLINE/);
  }, 80_000);

  it('answers status at once, and refuses a bad order naming the field, nothing started', async () => {
    const client = stack.orderSystem?.client;
    if (!client) throw new Error('no order system');
    const status = await client.workflow.execute('orderStatusWorkflow', {
      workflowId: 'status/orders-acme',
      taskQueue: EXAMPLE_ORDERS_TASK_QUEUE,
      args: [{ entity: 'brand', account: 'local', reference: 'orders-acme' }],
    });
    // Ready when the first test ran before; registering when this one runs alone.
    expect(status).toMatchObject({
      entity: 'brand',
      account: 'local',
      reference: 'orders-acme',
      workflowId: 'brand/local/orders-acme',
    });
    expect(['in-progress', 'ready']).toContain(status.outcome);

    const good = JSON.parse(
      readFileSync(join(defaultExamplesDir(), 'order-system/orders/acme-alerts.json'), 'utf8'),
    );
    const { website, ...brand } = good.brand.brand;
    const bad = { brand: { ...good.brand, reference: 'orders-bad', brand: { ...brand, webSite: website } } };
    const failure = await client.workflow
      .execute('orderFulfilmentWorkflow', {
        workflowId: 'fulfilment/bad',
        taskQueue: EXAMPLE_ORDERS_TASK_QUEUE,
        args: [bad],
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(causes(failure)).toMatch(/brand\.webSite: unknown field/);
    await expect(stack.client.workflow.getHandle('brand/local/orders-bad').describe()).rejects.toThrow(
      /not found/i,
    );
  }, 60_000);
});

/** An error's messages down its cause chain. */
function causes(error: unknown): string {
  const out: string[] = [];
  for (let e = error as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    out.push(String(e.message));
  return out.join(' <- ');
}
