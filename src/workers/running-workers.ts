/**
 * The lifecycle of the workers `createWorkers` made: run them all, and shut them down in order (the
 * activity workers first, while the workflow workers still answer the write budget), or release them
 * after a start that failed or was stopped.
 */
import type { NativeConnection, Worker } from '@temporalio/worker';
import { closeRegistryClients } from '../registry/client.js';
import type { SweepScheduleOutcome } from './sweep-schedule.js';

export interface RunningWorkers {
  workers: Worker[];
  connection: NativeConnection;
  /** Runs every worker until shutdown; rejects if one fails. */
  run(): Promise<void>;
  /** Graceful: stop polling, let running tasks finish, close clients and (own) connection. Idempotent. */
  shutdown(): Promise<void>;
  /** What became of each account's sweep Schedule (none when config.sweep has no `every`). */
  sweepSchedules?: SweepScheduleOutcome[];
}

/**
 * After a failed or stopped start: workers made but never run are started and stopped at once (the
 * SDK has no other way to release one), then the registry clients and the connection are closed.
 */
export async function releaseUnstarted(workers: Worker[], ownedConnection: NativeConnection | undefined) {
  const runs = workers.map((w) => w.run().catch(() => undefined));
  for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  await Promise.all(runs);
  await closeRegistryClients();
  await ownedConnection?.close().catch(() => undefined);
}

export function runningWorkers(
  workers: Worker[],
  connection: NativeConnection,
  ownsConnection: boolean,
  /** Stops what else uses the connection (the gauges), before it closes. */
  beforeClose: () => Promise<void> | undefined,
): RunningWorkers {
  // Each worker's run, started once: a shutdown awaits the activity workers' runs before it stops
  // the workflow workers.
  let runs: Promise<void>[] | undefined;
  const started = () => {
    runs ??= workers.map((w) => w.run());
    return runs;
  };
  let running: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const run = () => {
    running ??= Promise.all(started()).then(() => undefined);
    return running;
  };
  const stop = async (some: Worker[]) => {
    const all = started();
    for (const w of some) if (w.getState() === 'RUNNING') w.shutdown();
    await Promise.all(some.map((w) => all[workers.indexOf(w)]?.catch(() => undefined)));
  };
  return {
    workers,
    connection,
    run,
    shutdown() {
      // Once only: it closes the registry clients and the connection it opened. Workers that were
      // created but never run are started and stopped at once, so they release their task queues.
      // The activity workers stop first and their running activities finish while the workflow
      // workers still run: a write in flight reserves its instant from the account's budget
      // workflow, which only a running workflow worker answers.
      stopping ??= (async () => {
        run().catch(() => undefined);
        const activityWorkers = workers.filter(hostsActivitiesOnly);
        await stop(activityWorkers);
        await stop(workers.filter((w) => !activityWorkers.includes(w)));
        await beforeClose();
        await closeRegistryClients();
        if (ownsConnection) await connection.close();
      })();
      return stopping;
    },
  };
}

/**
 * Whether a worker runs activities only (a registry queue, notifications), no workflows. The workflow
 * worker also runs a few activities (an order's outcome, a fee approval's check), but it stops with
 * the workflow workers: stopped first, the registry calls still in flight waited on it (a campaign's
 * read of its brand's status is a query its workflows answer), and `npm start` once took 32 s, once
 * over 240 s, to stop after Ctrl-C.
 */
function hostsActivitiesOnly(worker: Worker): boolean {
  const { activities, workflowBundle, workflowsPath } = worker.options;
  return activities.size > 0 && workflowBundle === undefined && workflowsPath === undefined;
}
