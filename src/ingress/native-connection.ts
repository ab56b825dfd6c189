import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type CallContext,
  type ConnectionLike,
  defaultGrpcRetryOptions,
  type GrpcRetryOptions,
  type Metadata,
  OperatorService,
  WorkflowService,
} from '@temporalio/client';
import { native } from '@temporalio/core-bridge';
import { NativeConnection, type NativeConnectionOptions, TransportError } from '@temporalio/worker';
import { extractNativeClient } from '@temporalio/worker/lib/connection.js';

/** In-deadline retries of one call: the SDK's retryable codes and back-off, 4 attempts (~0.5 s). */
const retry = defaultGrpcRetryOptions({ maxAttempts: 4 });

type RpcImpl = Parameters<typeof WorkflowService.create>[0];
type Send = (client: native.Client, call: native.RpcCall) => Promise<Buffer>;
/** What the SDK's retry functions read of a gRPC status (code and details; never its metadata). */
type RetryStatus = Parameters<GrpcRetryOptions['retryableDecider']>[1];
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;
const CANCELLED = 1;
const UNKNOWN = 2;

/**
 * The ingress's connection to Temporal: calls travel on the SDK's native (Rust) client rather than
 * grpc-js, which costs the ingress about half the CPU per call (docs/ingress.md, "Benchmark").
 *
 * Two things differ from the SDK's own NativeConnection, which a Client can also use:
 * - It connects on first use, and again after a failed attempt, so the ingress starts (and reports
 *   not ready on /readyz) while Temporal is down.
 * - Its calls are retried here, within the caller's deadline (4 attempts, the SDK's back-off), and
 *   never behind it. NativeConnection asks Core to retry every call for up to 10 s, so an event the
 *   ingress had already answered 503 for could still reach its workflow seconds later; the registry
 *   is the one that retries a failed delivery.
 *
 * It reaches one internal of the SDK (`extractNativeClient` and Core's request function, as
 * NativeConnection itself uses them); the SDK's version is pinned exactly in package.json, and the
 * ingress tests run on this connection.
 */
export class IngressConnection implements ConnectionLike {
  readonly plugins = [];
  readonly workflowService: WorkflowService;
  readonly operatorService: OperatorService;
  private readonly callContext = new AsyncLocalStorage<CallContext>();
  private connected: NativeConnection | undefined;
  private connecting: Promise<NativeConnection> | undefined;
  private closed = false;
  /** Aborted by close(): calls still waiting for a connection give up at once. */
  private readonly closing = new AbortController();

  constructor(private readonly options: NativeConnectionOptions) {
    this.workflowService = WorkflowService.create(
      this.rpc(native.clientSendWorkflowServiceRequest),
      false,
      false,
    );
    this.operatorService = OperatorService.create(
      this.rpc(native.clientSendOperatorServiceRequest),
      false,
      false,
    );
  }

  async ensureConnected(): Promise<void> {
    await this.connection();
  }

  withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R> {
    return this.callContext.run({ ...this.callContext.getStore(), deadline }, fn);
  }

  withMetadata<R>(metadata: Metadata, fn: () => Promise<R>): Promise<R> {
    const context = this.callContext.getStore();
    return this.callContext.run({ ...context, metadata: { ...context?.metadata, ...metadata } }, fn);
  }

  /** Abandons waiting for calls made in `fn` when aborted (Core cannot cancel a call it has sent). */
  withAbortSignal<R>(abortSignal: AbortSignal, fn: () => Promise<R>): Promise<R> {
    return this.callContext.run({ ...this.callContext.getStore(), abortSignal }, fn);
  }

  /**
   * Closes the native connection; one still being made closes as soon as it is made, and calls
   * waiting for it fail at once (Core's attempt itself runs on to its own timeout, 30 s at most).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort(new Error('the ingress connection to Temporal is closed'));
    const connection = this.connected;
    this.connected = undefined;
    await connection?.close();
  }

  /** The native connection, connecting now if there is none (concurrent callers share one attempt). */
  private connection(): Promise<NativeConnection> {
    if (this.closed) return Promise.reject(new Error('the ingress connection to Temporal is closed'));
    if (this.connected) return Promise.resolve(this.connected);
    this.connecting ??= NativeConnection.connect(this.options).then(
      async (connection) => {
        this.connecting = undefined;
        if (this.closed) {
          await connection.close();
          throw new Error('the ingress connection to Temporal is closed');
        }
        this.connected = connection;
        return connection;
      },
      (error: unknown) => {
        this.connecting = undefined; // the next call tries again
        throw error;
      },
    );
    return this.connecting;
  }

  /**
   * The native connection, waited for no longer than the call may: until its deadline, its abort
   * signal or close(). Core's connect has its own 30 s timeout and cannot be cancelled, so without
   * this a call made while Temporal accepts TCP but does not answer (a hung server, a black-holing
   * proxy) held its caller, and the ingress's shutdown, for those 30 s. The attempt goes on: when it
   * succeeds after the wait ended, the next call uses it.
   */
  private connectionBy(
    deadline: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<NativeConnection> {
    const connection = this.connection();
    if (this.connected || this.closed) return connection;
    const signals = [this.closing.signal];
    if (signal) signals.push(signal);
    if (deadline !== undefined) signals.push(AbortSignal.timeout(Math.max(0, deadline - Date.now())));
    return abortable(connection, AbortSignal.any(signals)).catch((error: unknown) => {
      if (error instanceof DOMException && error.name === 'TimeoutError') throw deadlineExceeded();
      throw error;
    });
  }

  /** protobufjs's rpcImpl: one call through Core, without Core's retries, under the caller's context. */
  private rpc(send: Send): RpcImpl {
    return (method, requestData, callback) => {
      const context = this.callContext.getStore() ?? {};
      this.call(send, method.name, Buffer.from(requestData), context).then(
        (response) => callback(null, response),
        (error: Error) => callback(error),
      );
    };
  }

  /** The response's bytes; protobufjs decodes them for the caller. */
  private async call(send: Send, rpc: string, request: Buffer, context: CallContext): Promise<Buffer> {
    const deadline = context.deadline === undefined ? undefined : new Date(context.deadline).getTime();
    const metadata = Object.fromEntries(
      Object.entries(context.metadata ?? {}).map(([key, value]) => [
        key,
        typeof value === 'string'
          ? { type: 'ascii' as const, value }
          : { type: 'binary' as const, value: Buffer.from(value) },
      ]),
    );
    for (let attempt = 1; ; attempt++) {
      // At least 1 ms: a call always carries a real timeout once a deadline is set.
      const timeout = deadline === undefined ? null : Math.max(1, deadline - Date.now());
      try {
        const client = extractNativeClient(await this.connectionBy(deadline, context.abortSignal));
        return await abortable(
          send(client, { rpc, req: request, retry: false, metadata, timeout }),
          context.abortSignal,
        );
      } catch (caught) {
        const error = asConnectionFailure(caught);
        const status = statusOf(error);
        if (!status || !retry.retryableDecider(attempt, status)) throw error;
        const pause = retry.delayFunction(attempt, status);
        if (deadline !== undefined && Date.now() + pause >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}

/**
 * A gRPC status for the SDK's retry decider: Core's ServiceError carries one; failing to connect
 * counts as UNAVAILABLE, as it does on an established connection.
 */
function statusOf(error: unknown): RetryStatus | undefined {
  if (error instanceof TransportError) return { code: UNAVAILABLE, details: error.message } as RetryStatus;
  if (typeof error !== 'object' || error === null || typeof (error as { code?: unknown }).code !== 'number')
    return undefined;
  const { code, details, message } = error as { code: number; details?: string; message?: string };
  return { code, details: details ?? message ?? '' } as RetryStatus;
}

/**
 * A lost connection as UNAVAILABLE. When the connection drops under a call, Core reports UNKNOWN
 * "transport error" (most cuts; the SDK's decider retries UNKNOWN) or CANCELLED "operation was
 * canceled" (about 1 cut in 30; CANCELLED is not retried). The ingress never asks Core to cancel a
 * call, so both mean Temporal could not be reached: retried within the deadline, and reported as
 * UNAVAILABLE like a failed connect. CANCELLED "Timeout expired" (tonic's own timeout) is reported
 * as DEADLINE_EXCEEDED. Anything else is returned unchanged.
 */
export function asConnectionFailure(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const { code, message = '', details } = error as { code?: unknown; message?: string; details?: string };
  const text = details || message;
  let as: number;
  if (code === CANCELLED) as = /timeout expired/i.test(text) ? DEADLINE_EXCEEDED : UNAVAILABLE;
  else if (code === UNKNOWN && /^transport error$/i.test(text)) as = UNAVAILABLE;
  else return error;
  const summary = as === UNAVAILABLE ? 'connection to Temporal lost' : 'deadline exceeded';
  return Object.assign(new Error(`${summary}: ${text}`, { cause: error }), {
    code: as,
    details: text,
    metadata: (error as { metadata?: unknown }).metadata ?? {}, // a record: the SDK's isGrpcServiceError
  });
}

/** What a call that ran out of its deadline while connecting fails with (gRPC DEADLINE_EXCEEDED). */
function deadlineExceeded(): Error {
  return Object.assign(new Error('deadline exceeded while connecting to Temporal'), {
    code: DEADLINE_EXCEEDED,
    details: 'deadline exceeded while connecting to Temporal',
    metadata: {},
  });
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {}); // abandoned: its failure is not this caller's
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
