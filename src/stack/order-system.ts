/**
 * The example order system on the local stack (examples/order-system, docs/order-systems.md): the
 * Nexus endpoint `tcr-orders` (targeting the product's namespace and `tcr-workflows`), a worker in
 * namespace `orders` running the example's fulfilment workflow, and its example orders
 * (examples/order-system/orders/*.json), each started once as `fulfilment/{file name}`: a start
 * that finds it (running or closed) leaves it as it is.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, type Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { messageOf } from '../common/error-message.js';
import {
  DEFAULT_ORDER_ENDPOINT,
  EXAMPLE_ORDERS_NAMESPACE,
  EXAMPLE_ORDERS_TASK_QUEUE,
} from '../contracts/nexus-service.js';
import { WORKFLOW_TASK_QUEUE } from '../contracts/task-queues.js';

/** The example's workflows module (bundled from its TypeScript source). */
export function orderSystemWorkflowsPath(examplesDir: string): string {
  return join(examplesDir, 'order-system', 'workflows.ts');
}

const ALREADY_EXISTS = 6;

/** Creates the Nexus endpoint unless it exists (gRPC ALREADY_EXISTS). */
export async function ensureOrderEndpoint(
  connection: Connection,
  opts: { namespace: string; taskQueue?: string; endpoint?: string },
): Promise<'created' | 'exists'> {
  try {
    await connection.operatorService.createNexusEndpoint({
      spec: {
        name: opts.endpoint ?? DEFAULT_ORDER_ENDPOINT,
        target: { worker: { namespace: opts.namespace, taskQueue: opts.taskQueue ?? WORKFLOW_TASK_QUEUE } },
      },
    });
    return 'created';
  } catch (error) {
    if ((error as { code?: number }).code === ALREADY_EXISTS) return 'exists';
    throw new Error(
      `cannot create the Nexus endpoint ${opts.endpoint ?? DEFAULT_ORDER_ENDPOINT}: ${messageOf(error)}`,
    );
  }
}

export interface RunningOrderSystem {
  /** A client on namespace `orders`. */
  client: Client;
  /** The fulfilment workflow ids started by this start (earlier ones are left as they are). */
  started: string[];
  stop(): Promise<void>;
}

export async function startExampleOrderSystem(opts: {
  address: string;
  connection: Connection;
  dataConverter: DataConverter;
  productNamespace: string;
  examplesDir: string;
  /** A prebuilt bundle of the example's workflows (tests). */
  workflowBundle?: WorkflowBundleOption;
  /** Submit the example orders (default true). */
  orders?: boolean;
  log: (line: string) => void;
}): Promise<RunningOrderSystem> {
  await ensureOrderEndpoint(opts.connection, { namespace: opts.productNamespace });
  const native = await NativeConnection.connect({ address: opts.address });
  let worker: Worker;
  try {
    worker = await Worker.create({
      connection: native,
      namespace: EXAMPLE_ORDERS_NAMESPACE,
      taskQueue: EXAMPLE_ORDERS_TASK_QUEUE,
      dataConverter: opts.dataConverter,
      ...(opts.workflowBundle
        ? { workflowBundle: opts.workflowBundle }
        : { workflowsPath: orderSystemWorkflowsPath(opts.examplesDir) }),
    });
  } catch (error) {
    await native.close();
    throw error;
  }
  const run = worker
    .run()
    .catch((error: unknown) => opts.log(`order system worker failed: ${messageOf(error)}`));
  const client = new Client({
    connection: opts.connection,
    namespace: EXAMPLE_ORDERS_NAMESPACE,
    dataConverter: opts.dataConverter,
  });
  const started: string[] = [];
  const dir = join(opts.examplesDir, 'order-system', 'orders');
  if (opts.orders !== false && existsSync(dir))
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      const workflowId = `fulfilment/${name.replace(/\.json$/, '')}`;
      const order: unknown = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      try {
        await client.workflow.start('orderFulfilmentWorkflow', {
          workflowId,
          taskQueue: EXAMPLE_ORDERS_TASK_QUEUE,
          args: [order],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
        started.push(workflowId);
        opts.log(`example order system: ${workflowId} started in namespace ${EXAMPLE_ORDERS_NAMESPACE}`);
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    }
  return {
    client,
    started,
    async stop() {
      worker.shutdown();
      await run;
      await native.close();
    },
  };
}
