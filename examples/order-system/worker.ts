/**
 * The example order system's worker: namespace `orders`, task queue `order-fulfilment`, the
 * fulfilment workflow of ./workflows.ts. `tcr dev` runs one (src/stack/order-system.ts); to run it
 * against another Temporal, after creating the namespace and the Nexus endpoint (docs/order-systems.md):
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 TCR_PAYLOAD_KEYS_FILE=.data/payload-keys.json \
 *     node --experimental-strip-types examples/order-system/worker.ts
 *
 * Payloads cross the Nexus call encoded: the order system encodes them with the orchestrator's codec
 * (the same payload keys), or the handler could not read its orders.
 */
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { requiredDataConverter } from '../../src/codec/data-converter.js';
import { EXAMPLE_ORDERS_NAMESPACE, EXAMPLE_ORDERS_TASK_QUEUE } from '../../src/contracts/nexus-service.js';

export const orderSystemWorkflowsPath = fileURLToPath(new URL('./workflows.ts', import.meta.url));

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({
    address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
  });
  const worker = await Worker.create({
    connection,
    namespace: process.env.ORDERS_NAMESPACE ?? EXAMPLE_ORDERS_NAMESPACE,
    taskQueue: EXAMPLE_ORDERS_TASK_QUEUE,
    workflowsPath: orderSystemWorkflowsPath,
    // Fails closed like the product's processes: no payload keys, no start (TCR_PAYLOAD_KEYS_FILE).
    dataConverter: requiredDataConverter(),
  });
  await worker.run();
  await connection.close();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
