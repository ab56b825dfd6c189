/**
 * A Temporal client `Connection` that can be closed while calls are in flight without crashing the
 * process.
 *
 * The SDK (1.24) retries a failed gRPC call from a `setTimeout`. A timer that fires after
 * `Connection.close()` asks the closed channel for a new call, and grpc-js throws
 * `Channel has been shut down` from the timer: an uncaught exception that ends the process. Closing
 * while any call is open is enough (a long poll ends UNAVAILABLE when the channel goes, and
 * UNAVAILABLE is retried), so Ctrl-C on the local stack, `tcr`, or an order system closing its
 * client could each die on the way out.
 *
 * This connection keeps the SDK's retry policy (the same backoff, the same retryable codes) but
 * stops retrying once `close()` begins, and `close()` waits for the retries already scheduled (the
 * SDK caps each delay at 5 s) before it closes the channel. The calls that were being retried fail
 * with their last status, as an unretried call would. `test/config/safely-closing-connection.test.ts`
 * shows the SDK's own connection crash where this one exits cleanly; when the SDK fixes the race,
 * this class can go.
 */
import {
  Connection,
  type ConnectionOptions,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
} from '@temporalio/client';

/** Time given to a retry that was due when `close()` began, to start its call before the channel closes. */
const RETRY_SLACK_MS = 250;

/** What the retry interceptor and `close()` share. */
interface RetryGate {
  closing: boolean;
  /** performance.now() at which the last scheduled retry fires. */
  lastRetryDue: number;
}

function gatedRetryInterceptor(gate: RetryGate) {
  const defaults = defaultGrpcRetryOptions();
  return makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !gate.closing && defaults.retryableDecider(attempt, status),
    delayFunction: (attempt, status) => {
      const delay = defaults.delayFunction(attempt, status);
      gate.lastRetryDue = Math.max(gate.lastRetryDue, performance.now() + delay);
      return delay;
    },
  });
}

const gates = new WeakMap<Connection, RetryGate>();

export class SafelyClosingConnection extends Connection {
  /**
   * Like `Connection.lazy`, with the gated retry interceptor in place of the SDK's default one.
   * Interceptors passed in options run after it. (`Connection.connect` calls `this.lazy`, so it
   * builds a safe connection too.)
   */
  static override lazy(options: ConnectionOptions = {}): SafelyClosingConnection {
    const gate: RetryGate = { closing: false, lastRetryDue: 0 };
    const withGate: ConnectionOptions = {
      ...options,
      interceptors: [gatedRetryInterceptor(gate), ...(options.interceptors ?? [])],
    };
    // biome-ignore lint/complexity/noThisInStatic: super.lazy runs `new this(...)`, which builds this subclass; Connection.lazy would build a plain Connection
    const connection = super.lazy(withGate);
    if (!(connection instanceof SafelyClosingConnection)) {
      throw new Error('Connection.lazy no longer builds the subclass it is called on');
    }
    gates.set(connection, gate);
    return connection;
  }

  static override async connect(options: ConnectionOptions = {}): Promise<SafelyClosingConnection> {
    const connection = SafelyClosingConnection.lazy(options);
    await connection.ensureConnected();
    return connection;
  }

  /** Stops retrying, waits out the retries already scheduled, then closes the channel. */
  override async close(): Promise<void> {
    const gate = gates.get(this);
    if (gate) {
      gate.closing = true;
      const wait = gate.lastRetryDue + RETRY_SLACK_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    await super.close();
  }
}
