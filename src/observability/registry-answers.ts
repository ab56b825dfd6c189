/**
 * Registry answers as Prometheus metrics, without touching the registry client: a subscriber to
 * undici's diagnostics channels sees every HTTP request the client sends (each 429 retry included;
 * not a budgeted write held back at its socket, which was never sent) and counts its answer by
 * method, endpoint TEMPLATE and failure class, on the Temporal Runtime's meter (the worker's
 * Prometheus endpoint). Only requests under `/v2/` are registry calls; others
 * (a fetch of /metrics, …) are ignored. The endpoint label keeps only the API's literal path words:
 * every other segment (brand, campaign and vetting ids, event categories, use cases) becomes `{id}`,
 * and no query string, body or header is read.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { MetricCounter, MetricMeter } from '@temporalio/common';
import { registryEndpointTemplate } from '../common/registry-endpoint.js';

export { registryEndpointTemplate };

export type RegistryAnswerClass =
  | 'ok'
  | 'rate-limited'
  | 'unauthorized'
  | 'not-found'
  | 'validation'
  | 'server'
  | 'timeout'
  | 'aborted'
  | 'network';

export function answerClassOfStatus(status: number): RegistryAnswerClass {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429) return 'rate-limited';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not-found';
  if (status >= 500) return 'server';
  return 'validation';
}

const timeoutCodes = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

export function answerClassOfError(error: unknown): RegistryAnswerClass {
  const e = error as { code?: unknown; name?: unknown; cause?: { name?: unknown } } | undefined;
  if (typeof e?.code === 'string' && timeoutCodes.has(e.code)) return 'timeout';
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError') return 'timeout';
  if (e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED') return 'aborted';
  return 'network';
}

/** The creates the registry bills: a 2xx answer to one of these is one fee. */
const BILLABLE: Record<string, string> = {
  'POST /brand/nonBlocking': 'brand-registration',
  'POST /campaignBuilder': 'campaign-creation',
  'POST /brand/{id}/externalVetting': 'vet-order',
};

export interface RegistryAnswer {
  method: string;
  endpoint: string;
  status: number | undefined;
  answerClass: RegistryAnswerClass;
}

interface UndiciRequest {
  method?: string;
  path?: string;
}

let unsubscribe: (() => void) | undefined;

/**
 * Starts counting registry answers on `meter` (replaces an earlier observer). Returns a function
 * that stops. Metrics: tcr_registry_answers_total{method,endpoint,class,status},
 * tcr_registry_rate_limited_total{method,endpoint}, tcr_billable_creates_total{what}.
 */
export function observeRegistryAnswers(meter: MetricMeter): () => void {
  unsubscribe?.();
  const answers: MetricCounter = meter.createCounter(
    'tcr_registry_answers_total',
    undefined,
    'Registry HTTP answers by method, endpoint template, failure class and status',
  );
  const rateLimited = meter.createCounter(
    'tcr_registry_rate_limited_total',
    undefined,
    'Registry answers 429 (each retry counts)',
  );
  const billable = meter.createCounter(
    'tcr_billable_creates_total',
    undefined,
    'Billed creates the registry accepted (brand registration, campaign creation, vet order)',
  );
  const answered = new WeakSet<object>();
  const record = (request: UndiciRequest, status: number | undefined, answerClass: RegistryAnswerClass) => {
    const endpoint = registryEndpointTemplate(request.path ?? '');
    if (endpoint === undefined) return;
    const method = (request.method ?? 'GET').toUpperCase();
    answers.add(1, {
      method,
      endpoint,
      class: answerClass,
      status: status === undefined ? 'none' : String(status),
    });
    if (answerClass === 'rate-limited') rateLimited.add(1, { method, endpoint });
    const what = BILLABLE[`${method} ${endpoint}`];
    if (what && answerClass === 'ok') billable.add(1, { what });
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as { request: UndiciRequest; response: { statusCode: number } };
    answered.add(request);
    record(request, response.statusCode, answerClassOfStatus(response.statusCode));
  };
  const onError = (message: unknown) => {
    const { request, error } = message as { request: UndiciRequest; error: unknown };
    if (answered.has(request)) return; // the answer was counted; its body failed afterwards
    // A budgeted write that met its socket past its deadline was not sent: no answer to count (the
    // write reserves again; tcr_write_budget_late_total counts it). It showed as a network failure.
    // By name: this layer does not import the registry client (src/registry/send-by.ts).
    if ((error as { name?: unknown } | undefined)?.name === 'SendByMissedError') return;
    record(request, undefined, answerClassOfError(error));
  };
  diagnosticsChannel.subscribe('undici:request:headers', onHeaders);
  diagnosticsChannel.subscribe('undici:request:error', onError);
  const stop = () => {
    diagnosticsChannel.unsubscribe('undici:request:headers', onHeaders);
    diagnosticsChannel.unsubscribe('undici:request:error', onError);
    if (unsubscribe === stop) unsubscribe = undefined;
  };
  unsubscribe = stop;
  return stop;
}
