/**
 * The life of a worker process, shared by `tcr worker` and `node dist/workers/main.js`: start the
 * workers, run them until `stop` is aborted, shut them down gracefully. A stop is honoured in every
 * state: while starting (the start is given up at once: nothing polls yet, so nothing is lost),
 * while running (graceful shutdown) and while shutting down (nothing more to do; the caller's second
 * signal exits at once, see process-signals.ts).
 */

import { messageOf } from '../common/error-message.js';
import type { WorkerConfig } from '../config/worker-config.js';
import {
  type CreateWorkersOptions,
  createWorkers,
  type RunningWorkers,
  WorkersStartAborted,
} from './create-workers.js';

/** The workers could not be started; the message names what failed. */
export class WorkersStartError extends Error {
  override readonly name = 'WorkersStartError';
}

/** A worker failed while running; the workers were shut down. */
export class WorkersRunError extends Error {
  override readonly name = 'WorkersRunError';
}

export type WorkersStopped = 'before-start' | 'after-run';

export interface RunWorkersOptions extends Omit<CreateWorkersOptions, 'signal'> {
  /** Aborted to stop (the first SIGINT / SIGTERM). */
  stop: AbortSignal;
  /** One progress line to standard error. */
  log(line: string): void;
}

/** Resolves when `signal` is aborted (at once if it is already). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Runs the workers until `stop`; resolves with when the stop came. Rejects with WorkersStartError
 * (nothing was started; everything made is released) or WorkersRunError.
 */
export async function runWorkersUntilStopped(
  config: WorkerConfig,
  options: RunWorkersOptions,
): Promise<WorkersStopped> {
  const { stop, log, ...createOptions } = options;
  if (stop.aborted) return 'before-start';
  const starting = createWorkers(config, { ...createOptions, signal: stop });
  // A stop while starting is not kept waiting for the step in progress (a connection attempt can take
  // 30 s): createWorkers releases what it made once that step is over, in the background.
  starting.catch(() => undefined);
  const first = await Promise.race([
    starting.then(
      (workers) => ({ workers }),
      (error: unknown) => ({ error }),
    ),
    aborted(stop).then(() => 'stopped' as const),
  ]);
  if (first === 'stopped') {
    log('tcr worker: stopped before the workers started');
    return 'before-start';
  }
  if ('error' in first) {
    if (first.error instanceof WorkersStartAborted) {
      log('tcr worker: stopped before the workers started');
      return 'before-start';
    }
    throw new WorkersStartError(`workers could not start: ${messageOf(first.error)}`);
  }
  const workers: RunningWorkers = first.workers;
  const onStop = () => {
    log('tcr worker: stopping gracefully ...');
    workers
      .shutdown()
      .catch((error: unknown) => log(`tcr worker: error while stopping: ${messageOf(error)}`));
  };
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  for (const s of workers.sweepSchedules ?? [])
    log(
      s.outcome === 'failed'
        ? `tcr worker: WARNING the sweep Schedule of account ${s.account} could not be set: ${s.error}`
        : `tcr worker: sweep Schedule of account ${s.account}: every ${s.every} (${s.outcome})`,
    );
  log(`tcr worker running (${workers.workers.length} workers); Ctrl-C or SIGTERM stops it`);
  try {
    await workers.run();
  } catch (error) {
    await workers.shutdown().catch(() => undefined);
    throw new WorkersRunError(`a worker failed: ${messageOf(error)}`);
  } finally {
    stop.removeEventListener('abort', onStop);
  }
  await workers.shutdown(); // idempotent: a no-op after the stop's shutdown
  log('tcr worker stopped');
  return 'after-run';
}
