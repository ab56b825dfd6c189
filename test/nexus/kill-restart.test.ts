/**
 * Issue 38's done-when: killing and restarting both sides' workers in the middle leaves every order's
 * outcome delivered once. On the Temporal dev server (bench stack: simulator behind a counting proxy,
 * the product's worker as a `node dist/cli/main.js worker` process), the example order system's
 * fulfilment workflow (examples/order-system) runs in namespace `orders` from its own worker process.
 * Both processes are SIGKILLed while every order's brand operation is in flight (its outcome
 * workflow started, no fulfilment closed) and started again; the order system's again while the
 * campaign operations are. Every fulfilment completes once with its outcome (running; declined with the
 * partner's reason), each Nexus operation scheduled and completed once, one outcome workflow per
 * operation, and the registry holds one brand, one campaign and one fee per order.
 *
 * Runs dist/ (`npm run build` first when run alone).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BenchStack, startBenchStack, type WorkerProcess } from '../../bench/support/bench-stack.js';
import { until } from '../../bench/support/stats.js';
import type { FulfilmentOrder, FulfilmentResult } from '../../examples/order-system/workflows.js';
import { dataConverter } from '../../src/codec/data-converter.js';
import {
  EXAMPLE_ORDERS_NAMESPACE,
  EXAMPLE_ORDERS_TASK_QUEUE,
  ORDER_OUTCOME_WORKFLOW_TYPE,
} from '../../src/contracts/nexus-service.js';
import { defaultExamplesDir } from '../../src/stack/options.js';
import { ensureOrderEndpoint, orderSystemWorkflowsPath } from '../../src/stack/order-system.js';
import { testNote } from '../support/quiet-log.js';
import { workflowBundle } from '../support/temporal-env.js';

const ORDER_WORKER = fileURLToPath(new URL('./order-system-worker.mjs', import.meta.url));
const STEP_MS = 60_000;

let stack: BenchStack;
let orders: Client;
let bundleFile: string;

beforeAll(async () => {
  const bundle = workflowBundle(orderSystemWorkflowsPath(defaultExamplesDir()));
  bundle.catch(() => undefined);
  stack = await startBenchStack({ workers: 'process', timeScale: 3600 });
  bundleFile = join(stack.dataDir, 'order-system-bundle.js');
  writeFileSync(bundleFile, (await bundle).code);
  // The bench client's connection is a Connection (the SDK types it as ConnectionLike).
  const connection = stack.client.connection as Connection;
  // The order system's namespace on this dev server, and the Nexus endpoint into the product's.
  await connection.workflowService.registerNamespace({
    namespace: EXAMPLE_ORDERS_NAMESPACE,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  await ensureOrderEndpoint(connection, { namespace: 'default' });
  orders = new Client({ connection, namespace: EXAMPLE_ORDERS_NAMESPACE, dataConverter: dataConverter() });
  await until(
    'namespace orders served',
    async () => {
      await orders.workflow.count();
      return true;
    },
    30_000,
    200,
  );
}, 120_000);

/** Order-system worker processes still running: the last one started outlives the test otherwise. */
const orderWorkers = new Set<ChildProcess>();

afterAll(async () => {
  for (const child of orderWorkers) child.kill('SIGKILL');
  await stack?.stop();
}, 60_000);

/** The order system's worker process (SIGKILLable). */
function startOrderWorker(): WorkerProcess {
  const child: ChildProcess = spawn(process.execPath, [ORDER_WORKER], {
    env: { ...process.env, TEMPORAL_ADDRESS: stack.temporalAddress, ORDER_SYSTEM_BUNDLE: bundleFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  orderWorkers.add(child);
  child.once('exit', () => orderWorkers.delete(child));
  let stderr = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('order system worker running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`order worker exited (${code}): ${stderr}`)));
  });
  ready.catch(() => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { pid: child.pid!, child, ready, exited };
}

/** The example orders under fresh references: two that run, one the simulated partner declines. */
function exampleOrders(): { id: string; order: FulfilmentOrder; declined: boolean }[] {
  const read = (name: string) =>
    JSON.parse(readFileSync(join(defaultExamplesDir(), `order-system/orders/${name}.json`), 'utf8'));
  const suffix = Date.now().toString(36);
  return (['acme-alerts', 'acme-alerts', 'acme-promo-declined'] as const).map((name, i) => {
    const template = read(name);
    const brandRef = `kr${i}-${suffix}`;
    return {
      id: `fulfilment/kill-${i}-${suffix}`,
      declined: name === 'acme-promo-declined',
      order: {
        brand: { ...template.brand, reference: brandRef },
        campaign: { ...template.campaign, reference: `${brandRef}-c`, brandReference: brandRef },
      },
    };
  });
}

async function listAll(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const out: WorkflowExecutionInfo[] = [];
  for await (const info of client.workflow.list({ query })) out.push(info);
  return out;
}

it('SIGKILLed workers on both sides mid-order: every outcome delivered once', async () => {
  const placed = exampleOrders();
  let product = stack.startWorkerProcess();
  let orderSide = startOrderWorker();
  await Promise.all([product.ready, orderSide.ready]);
  for (const { id, order } of placed)
    await orders.workflow.start('orderFulfilmentWorkflow', {
      workflowId: id,
      taskQueue: EXAMPLE_ORDERS_TASK_QUEUE,
      args: [order],
    });

  /**
   * Every order's `kind` operation started (its outcome workflow exists), no fulfilment closed: kill
   * the order system's worker, and the product's with it when `product` (its restart bundles the
   * workflows: 15-40 s on a busy machine, so the second kill spares it).
   */
  const killDuring = async (kind: 'brand' | 'campaign', killProduct: boolean) => {
    await until(
      `every ${kind} outcome workflow started`,
      async () => {
        const started = await listAll(
          stack.client,
          `WorkflowType = '${ORDER_OUTCOME_WORKFLOW_TYPE}' AND WorkflowId STARTS_WITH 'nexus-order/${kind}/'`,
        );
        return started.length >= placed.length ? true : undefined;
      },
      STEP_MS,
      100,
    );
    if (killProduct) product.child.kill('SIGKILL');
    orderSide.child.kill('SIGKILL');
    await Promise.all([killProduct ? product.exited : undefined, orderSide.exited]);
    const open = await Promise.all(
      placed.map(async ({ id }) => (await orders.workflow.getHandle(id).describe()).status.name),
    );
    // In the middle. The brand kill lands before any campaign exists: no order has its outcome. The
    // campaign kill spares the product's worker, which may finish some campaigns (the simulator's
    // partners answer in seconds) before the order system's worker is gone: at least one still open.
    if (kind === 'brand')
      expect(open, `fulfilments when the ${kind} kill landed`).toEqual(placed.map(() => 'RUNNING'));
    else expect(open, `fulfilments when the ${kind} kill landed`).toContain('RUNNING');
    testNote(`${kind} kill: fulfilments ${open.join(', ')}`);
    const t = Date.now();
    if (killProduct) product = stack.startWorkerProcess();
    orderSide = startOrderWorker();
    await Promise.all([product.ready, orderSide.ready]);
    testNote(`${kind} kill: workers back in ${Date.now() - t} ms`);
  };
  await killDuring('brand', true);
  await killDuring('campaign', false);

  const results = await Promise.all(
    placed.map(({ id }) => orders.workflow.getHandle(id).result() as Promise<FulfilmentResult>),
  );
  for (const [i, { order, declined }] of placed.entries()) {
    const result = results[i]!;
    expect(result.brand).toMatchObject({ outcome: 'ready', reference: order.brand.reference });
    if (declined) {
      expect(result).toMatchObject({ fulfilled: false, campaign: { outcome: 'declined' } });
      expect(result.why).toMatch(/DECLINE/);
    } else expect(result).toMatchObject({ fulfilled: true, campaign: { outcome: 'running' } });
  }

  // Once: one run of each fulfilment, each of its two operations scheduled and completed once.
  const fulfilments = await listAll(orders, `WorkflowType = 'orderFulfilmentWorkflow'`);
  expect(fulfilments.map((f) => f.workflowId).sort()).toEqual(placed.map((p) => p.id).sort());
  for (const f of fulfilments) expect(f.status.name).toBe('COMPLETED');
  for (const { id } of placed) {
    const { events } = await orders.workflow.getHandle(id).fetchHistory();
    const count = (name: string) =>
      (events ?? []).filter(
        (e) => e[name as keyof typeof e] !== undefined && e[name as keyof typeof e] !== null,
      ).length;
    expect(
      {
        scheduled: count('nexusOperationScheduledEventAttributes'),
        completed: count('nexusOperationCompletedEventAttributes'),
        failed: count('nexusOperationFailedEventAttributes'),
        timedOut: count('nexusOperationTimedOutEventAttributes'),
      },
      id,
    ).toEqual({ scheduled: 2, completed: 2, failed: 0, timedOut: 0 });
  }
  // One outcome workflow per operation (a retried start attached to it), each closed once.
  const outcomes = await listAll(stack.client, `WorkflowType = '${ORDER_OUTCOME_WORKFLOW_TYPE}'`);
  expect(outcomes).toHaveLength(2 * placed.length);
  expect(new Set(outcomes.map((o) => o.workflowId)).size).toBe(2 * placed.length);
  for (const o of outcomes) expect(o.status.name).toBe('COMPLETED');

  // The registry: one brand, one campaign, one fee per order (nothing registered or billed twice).
  const accepted = (method: string, path: RegExp) =>
    stack.proxy.calls.filter(
      (c) => c.method === method && path.test(c.path) && c.status >= 200 && c.status < 300,
    ).length;
  expect(accepted('POST', /^\/v2\/brand\/nonBlocking$/)).toBe(placed.length);
  expect(accepted('POST', /^\/v2\/campaignBuilder$/)).toBe(placed.length);
  const fees = (await stack.control.ledger()).filter((e) => e.kind === 'CAMPAIGN_REGISTRATION');
  expect(fees).toHaveLength(placed.length);
  expect(new Set(fees.map((f) => f.campaignId)).size).toBe(placed.length);
}, 240_000);
