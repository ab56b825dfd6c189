/**
 * Runs `stop` once on the first SIGINT or SIGTERM and resolves when it has finished, so long-running
 * commands (worker, ingress, simulator, dev) stop cleanly on Ctrl-C or from a process manager.
 */
export function untilSignal(stop: () => Promise<void>): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      console.error(`\n${signal}: stopping ...`);
      stop().then(
        () => resolve(0),
        (err: unknown) => {
          console.error(`error while stopping: ${err instanceof Error ? err.message : String(err)}`);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}
