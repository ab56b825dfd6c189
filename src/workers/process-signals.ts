/**
 * Signals and exit of a process that runs workers (`tcr worker`, `node dist/workers/main.js`).
 *
 * - The first SIGINT or SIGTERM aborts `signal`: a start in progress is given up, running workers
 *   shut down gracefully (running tasks finish; Temporal hands the rest to other workers).
 * - A second one while that is under way exits at once (code 128 + the signal's number: 130 for
 *   SIGINT, 143 for SIGTERM), without waiting for running tasks; Temporal retries them elsewhere.
 *
 * The Temporal Runtime installs its own SIGINT / SIGTERM listeners (they shut its workers down and
 * never exit the process), and while any listener is installed Node no longer exits on the signal:
 * these handlers are what makes the process end. `exitWhenDone` ends it once the work is over even
 * when the SDK still holds it open (for example the workflow threads of a Worker whose creation
 * failed, or a connection attempt still in progress).
 */

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;
type StopSignal = keyof typeof SIGNAL_NUMBERS;

export interface ProcessStop {
  /** Aborted on the first SIGINT / SIGTERM; its reason is the signal's name. */
  signal: AbortSignal;
  /** Removes the handlers (tests; a process that exits needs not). */
  dispose(): void;
}

/**
 * Installs the handlers. `log` writes one line to standard error. `exit` is process.exit (tests
 * may pass their own).
 */
export function stopOnSignals(
  log: (line: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): ProcessStop {
  const controller = new AbortController();
  const onSignal = (name: StopSignal) => {
    if (!controller.signal.aborted) {
      log(`tcr worker: ${name} received, stopping gracefully (send it again to exit at once)`);
      controller.abort(name);
      return;
    }
    log(`tcr worker: ${name} received again, exiting now without waiting for running tasks`);
    exit(128 + SIGNAL_NUMBERS[name]);
  };
  const handlers = (Object.keys(SIGNAL_NUMBERS) as StopSignal[]).map((name) => {
    const handler = () => onSignal(name);
    process.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal: controller.signal,
    dispose() {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}

/**
 * How long a process whose work is over may still take to end by itself (its last log lines are
 * written meanwhile) before it is ended with `code`. A process that nothing holds ends at once.
 */
export const EXIT_GRACE_MS = 1_000;

/**
 * Ends the process with `code` once its work is over: by itself when nothing holds it open, else
 * after EXIT_GRACE_MS. The timer does not itself keep the process alive.
 */
export function exitWhenDone(code: number, exit: (code: number) => void = (c) => process.exit(c)): void {
  process.exitCode = code;
  setTimeout(() => exit(code), EXIT_GRACE_MS).unref();
}
