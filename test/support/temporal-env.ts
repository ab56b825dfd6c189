import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { failureConverterPath } from '../../src/codec/data-converter.js';
import { withTimeout } from '../../src/common/timeout.js';
import { allSearchAttributeKeys } from '../../src/contracts/search-attributes.js';
import { dynamicConfigFlags } from '../../src/toolchain/dev-server.js';
import { temporalCliPath, testServerPath } from '../../src/toolchain/paths.js';
import { workflowPreloadModules } from '../../src/workers/workflow-preload.js';

/**
 * A time-skipping environment on the Java test server built by scripts/setup.sh. Time skips whenever
 * every workflow is blocked on a timer, so a 48-hour wait costs milliseconds. The test server has no
 * visibility store: `client.workflow.list()` and `count()` do not work on it, and its clock is global
 * to the environment, so one file's tests share it. The project's search attributes are registered.
 */
export async function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  // Through a wrapper that sends the server's output (SEVERE stack traces of calls it answers with a
  // retryable error) to test-results/logs (quiet test runs).
  process.env.TCR_TEST_SERVER_LAUNCH = testServerPath();
  process.env.TCR_TEST_LOG_DIR = testLogDir;
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: quietTestServerWrapper } },
  });
  // The test server rejects search attributes it does not know: register the project's, as the dev
  // server and temporal-docker do.
  const searchAttributes: Record<string, number> = {};
  for (const key of allSearchAttributeKeys)
    searchAttributes[key.name] = encodeSearchAttributeIndexedValueType(key.type) as number;
  await env.connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes });
  return env;
}

/**
 * A dev-server environment (the Temporal CLI built by setup) with the project's search attributes
 * registered, for end-to-end tests that need visibility queries, real time and the real server;
 * `dynamicConfig` adds server settings (e.g. a low `limit.historyCount.suggestContinueAsNew`).
 */
export function devServerEnv(dynamicConfig: Record<string, string> = {}): Promise<TestWorkflowEnvironment> {
  // Through a wrapper that sends the CLI's start-up banner to test-results/logs (quiet test runs).
  process.env.TCR_TEMPORAL_CLI = temporalCliPath();
  process.env.TCR_TEST_LOG_DIR = testLogDir;
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: quietCliWrapper },
      searchAttributes: [...allSearchAttributeKeys],
      ip: '127.0.0.1',
      extraArgs: [
        ...dynamicConfigFlags(),
        ...Object.entries(dynamicConfig).flatMap(([key, value]) => [
          '--dynamic-config-value',
          `${key}=${value}`,
        ]),
      ],
    },
  });
}

const quietCliWrapper = fileURLToPath(new URL('./temporal-cli-quiet.sh', import.meta.url));
const quietTestServerWrapper = fileURLToPath(new URL('./temporal-test-server-quiet.sh', import.meta.url));
const testLogDir = join(process.cwd(), 'test-results', 'logs');

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * Bundles a workflows module once per test process; bundling costs seconds, reuse costs nothing. The
 * bundle carries the product's failure converter (src/codec), as the worker's own bundle does, so
 * failure messages a workflow writes are encoded (and encrypted where a test's worker has keys).
 */
export function workflowBundle(
  workflowsPath: string,
  /** Workflow interceptor modules to bundle with it (tracing: src/workers/tracing-options.ts). */
  workflowInterceptorModules: readonly string[] = [],
): Promise<WorkflowBundleWithSourceMap> {
  const key = [workflowsPath, ...workflowInterceptorModules].join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath,
      failureConverterPath,
      workflowInterceptorModules: [...workflowInterceptorModules],
      preloadModules: workflowPreloadModules(),
      logger: quietBundlerLogger,
    });
    bundles.set(key, bundle);
  }
  return bundle;
}

const noop = () => {};
const quietBundlerLogger = {
  log: noop,
  trace: noop,
  debug: noop,
  info: noop,
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta ?? ''),
};

/**
 * Awaits an update's answer on the time-skipping server, moving its clock meanwhile. The test server
 * skips time while a test sleeps or awaits a workflow's result, never while it awaits an update's
 * (temporalio/sdk-java#2283): an update sent just before a fixed `env.sleep`, whose answer needs
 * activity retries or a timer after that sleep, then runs on the real clock, and a 1-minute backoff
 * costs a real minute. Here the clock moves in steps of `stepMs` until the answer comes (never while
 * the test goes on: no sleep is left running), and the wait fails, naming `what`, if it has not come
 * within `within.ms` of workflow time.
 *
 * Past that budget the clock stops and the answer still gets `within.graceMs` of real time (10 s):
 * the server holds its clock while a workflow or activity task is out, but not while a finished
 * update's answer travels back to this process, and with nothing left to hold it each `env.sleep` moves
 * the clock at once. Run 7 of attempt 14 (README) reported `appealBrand 500` as never answered about
 * 2 s after its last retry had failed in the worker, with no workflow task failed: the likeliest
 * reading (not proven) is that the budget's last steps ran out while that answer was on its way on a
 * loaded machine. An answer that needs more workflow time still fails, and a lost one fails after the
 * grace, saying so.
 */
export async function answerWithin<T>(
  env: Pick<TestWorkflowEnvironment, 'currentTimeMs' | 'sleep'>,
  answer: Promise<T>,
  within: { ms: number; what: string; graceMs?: number },
  stepMs = 15_000,
): Promise<T> {
  let settled = false;
  const arrived = answer.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  const start = await env.currentTimeMs();
  while (!settled) {
    if ((await env.currentTimeMs()) - start >= within.ms) {
      const graceMs = within.graceMs ?? 10_000;
      await withTimeout(arrived, graceMs);
      if (!settled)
        throw new Error(
          `${within.what}: no answer within ${within.ms / 1000} s of workflow time and ${graceMs / 1000} s of real time after it`,
        );
      break;
    }
    await env.sleep(stepMs);
  }
  return answer;
}
