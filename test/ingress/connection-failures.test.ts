/**
 * How the ingress's connection reports a call whose connection dropped under it. Core says UNKNOWN
 * "transport error" or, now and then, CANCELLED "operation was canceled" (not retried by the SDK's
 * decider: the cause of ingress-connection.test.ts failing about 1 run in 4). Both are UNAVAILABLE.
 */
import { isGrpcServiceError } from '@temporalio/client';
import { expect, it } from 'vitest';
import { asConnectionFailure } from '../../src/ingress/native-connection.js';

/** Shaped like Core's ServiceError. */
const coreError = (code: number, message: string) =>
  Object.assign(new Error(message), { code, details: '', metadata: {} });

it('reports a connection lost under a call as UNAVAILABLE, and tonic’s timeout as DEADLINE_EXCEEDED', () => {
  const canceled = coreError(1, 'operation was canceled');
  expect(asConnectionFailure(canceled)).toMatchObject({
    code: 14,
    details: 'operation was canceled',
    cause: canceled,
  });
  expect(asConnectionFailure(coreError(2, 'transport error'))).toMatchObject({ code: 14 });
  expect(asConnectionFailure(coreError(1, 'Timeout expired'))).toMatchObject({ code: 4 });
  // Still a gRPC service error for the SDK's client (its deadline and not-found checks read it).
  expect(isGrpcServiceError(asConnectionFailure(canceled))).toBe(true);
});

it('leaves every other failure as it is', () => {
  for (const error of [
    coreError(2, 'something else'),
    coreError(5, 'workflow not found'),
    coreError(14, 'tcp connect error'),
    new Error('the ingress connection to Temporal is closed'),
    'not an object',
  ])
    expect(asConnectionFailure(error)).toBe(error);
});
