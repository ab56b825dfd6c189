/**
 * The last moment a budgeted write may leave: a write's permit from the account's write budget
 * (src/activities/write-budget.ts) is an instant, and the budget's margin covers only so much delay
 * after it. Checking the clock before the request is handed to the connection pool is not enough: a
 * request can wait there for a free connection. So the check runs where undici writes the request to
 * its socket (the handler's `onRequestStart`): a write that reaches its socket after `sendBy` is
 * aborted there, before a byte of it is sent, with `SendByMissedError`, and the transport reserves
 * again. One that reaches it in time is reported (`onSent`, with that moment): the budget places the
 * next window after the actual send.
 */
import type { Dispatcher } from 'undici';

/** The dispatch option that carries a write's deadline (epoch ms); requests without it pass unchecked. */
export interface SendByOption {
  sendBy?: number;
  /** Called with the moment the request reached its socket within `sendBy` (and so was sent). */
  onSent?: (at: number) => void;
}

/** A write that reached its socket after its deadline: aborted before it was sent. */
export class SendByMissedError extends Error {
  constructor(readonly lateByMs: number) {
    super(`the write reached its connection ${lateByMs} ms after its deadline and was not sent`);
    this.name = 'SendByMissedError';
  }
}

class SendByHandler implements Dispatcher.DispatchHandler {
  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly sendBy: number,
    private readonly now: () => number,
    private readonly onSent: ((at: number) => void) | undefined,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    const now = this.now();
    const late = now - this.sendBy;
    if (late > 0) {
      controller.abort(new SendByMissedError(late));
      return;
    }
    this.onSent?.(now);
    this.handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.handler.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.handler.onResponseStart?.(...args);
  }

  onResponseData(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseData']>>): void {
    this.handler.onResponseData?.(...args);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.handler.onResponseEnd?.(...args);
  }

  onResponseError(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseError']>>): void {
    this.handler.onResponseError?.(...args);
  }
}

/** An undici interceptor enforcing each request's `sendBy` at its socket (`dispatcher.compose(...)`). */
export function sendByInterceptor(now: () => number = Date.now): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => {
    const { sendBy, onSent } = options as Dispatcher.DispatchOptions & SendByOption;
    return sendBy === undefined
      ? dispatch(options, handler)
      : dispatch(options, new SendByHandler(handler, sendBy, now, onSent));
  };
}
