// The example order system's worker (examples/order-system/worker.ts) as a process a test can
// SIGKILL: namespace `orders`, task queue `order-fulfilment`, the example's workflows from a bundle
// the test made (ORDER_SYSTEM_BUNDLE: a file of bundled code), the product's data converter from
// dist/ (payloads plain, as the test stack's). Says "order system worker running" on stderr.
import { NativeConnection, Worker } from '@temporalio/worker';
import { dataConverter } from '../../dist/codec/data-converter.js';
import { EXAMPLE_ORDERS_NAMESPACE, EXAMPLE_ORDERS_TASK_QUEUE } from '../../dist/contracts/nexus-service.js';

const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
const worker = await Worker.create({
  connection,
  namespace: EXAMPLE_ORDERS_NAMESPACE,
  taskQueue: EXAMPLE_ORDERS_TASK_QUEUE,
  workflowBundle: { codePath: process.env.ORDER_SYSTEM_BUNDLE },
  dataConverter: dataConverter({ env: {} }),
});
process.stderr.write('order system worker running\n');
await worker.run();
await connection.close();
