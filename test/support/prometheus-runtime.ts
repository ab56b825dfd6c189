import { Runtime, type RuntimeOptions } from '@temporalio/worker';
import { freePort, isAddressInUse, startOnProbedPorts } from '../../src/stack/ports.js';

/**
 * Replaces this process's Temporal Runtime with one whose Prometheus exporter listens on a loopback
 * port, and returns the exporter's /metrics URL. The exporter (in the Runtime's Rust core) must be
 * given an address up front and does not report the port it bound, so port 0 cannot be used: the port
 * is probed, and if another process takes it before the exporter binds it ("Address already in use"),
 * the Runtime is installed again on a fresh one (3 tries; src/stack/ports.ts).
 */
export async function installPrometheusRuntime(
  options: (bindAddress: string) => RuntimeOptions,
): Promise<string> {
  // test/support/quiet-runtime.ts installed a Runtime for this process; nothing uses it yet.
  await Runtime.instance().shutdown();
  return startOnProbedPorts({
    probed: true,
    retryable: isAddressInUse,
    start: async () => {
      const bindAddress = `127.0.0.1:${await freePort()}`;
      Runtime.install(options(bindAddress));
      return `http://${bindAddress}/metrics`;
    },
  });
}
