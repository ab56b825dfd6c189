/**
 * Builds every worker a process runs: the workflow worker on `tcr-workflows`, the write budgets'
 * workflow worker on `registry-budget`, and per CSP account a reads and two writes activity workers
 * on `registry-reads/{account}`, `registry-writes/{account}` and
 * `registry-writes/{account}/interactive` (an operator's writes and those a webhook woke).
 *
 * Reads: `maxTaskQueueActivitiesPerSecond` = the account's GETs per second, enforced by the server per
 * task queue, so it holds across every worker process.
 *
 * Writes: the account's write budget workflow (src/activities/write-budget.ts) grants each registry
 * write its instant, for every worker process at once, so a window's 20 writes can go together and
 * the 21st waits for the first to leave the window. Each process runs at most
 * WRITE_ACTIVITIES_PER_ACCOUNT background write activities of an account at once, so a backlog waits
 * in the task queue, where priority orders it, not in reservations. Interactive writes have
 * their own queue and slots, and the budget keeps room in every window for them while they come.
 * The server-side rate of the writes queues is only a backstop (the account's window count per
 * second).
 *
 * The registry clients also keep their own client-side limiter (per process; reads, and writes outside
 * a write activity) and hand 429s to Temporal at once (`maxRateLimitRetries: 0`), which retries after
 * the registry's Retry-After.
 */
import { Client } from '@temporalio/client';
import type { DataConverter, MetricMeter } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import {
  createCampaignReadActivities,
  createCampaignWriteActivities,
} from '../activities/campaign-activities.js';
import { createEstateActivities } from '../activities/estate-activities.js';
import { createFeeApprovalActivities } from '../activities/fee-approval.js';
import { withHeartbeat } from '../activities/heartbeat.js';
import { createNotificationActivities } from '../activities/notifications.js';
import {
  createRegistryReadActivities,
  createRegistryWriteActivities,
  type RegistryClientResolver,
} from '../activities/registry-activities.js';
import { startWriteBudget, withWriteBudget, writeBudgetSettings } from '../activities/write-budget.js';
import { dataConverter as productDataConverter } from '../codec/data-converter.js';
import { messageOf } from '../common/error-message.js';
import { registryClientOptions } from '../config/accounts.js';
import { feeApproversFileFromEnv, readFeeApprovers } from '../config/fee-approvers.js';
import { temporalConnectionOptions } from '../config/temporal-connection.js';
import type { CspAccountConfig, WorkerConfig } from '../config/worker-config.js';
import type { RegistryReadActivities, RegistryWriteActivities } from '../contracts/activity-types.js';
import type {
  CampaignReadActivities,
  CampaignWriteActivities,
} from '../contracts/campaign-activity-types.js';
import type { EstateActivities } from '../contracts/estate.js';
import { NOTIFICATIONS_TASK_QUEUE } from '../contracts/notifications.js';
import {
  registryInteractiveWritesTaskQueue,
  registryReadsTaskQueue,
  registryWritesTaskQueue,
  WORKFLOW_TASK_QUEUE,
} from '../contracts/task-queues.js';
import { WRITE_BUDGET_TASK_QUEUE } from '../contracts/write-budget.js';
import { createOrderOutcomeActivities } from '../nexus/outcome-activities.js';
import { orderSystemServiceHandler } from '../nexus/service.js';
import type { Tracing } from '../observability/tracing.js';
import { closeRegistryClients, type RegistryClient, registryClientFor } from '../registry/client.js';
import { DEFAULT_RATE_LIMITS } from '../registry/rate-limiter.js';
import { moduleFile } from './module-file.js';
import { checkNamespace, checkSearchAttributes } from './namespace-checks.js';
import { startRegistrationGauges } from './registration-gauges.js';
import { type RunningWorkers, releaseUnstarted, runningWorkers } from './running-workers.js';
import { ensureSweepSchedules, type SweepScheduleOutcome } from './sweep-schedule.js';
import { workerTracingOptions } from './tracing-options.js';
import { workflowPreloadModules } from './workflow-preload.js';

/**
 * On shutdown, a registry call in flight gets this long to finish before its activity is cancelled:
 * a write that reached the registry then reports its result instead of being retried elsewhere.
 */
export const ACTIVITY_SHUTDOWN_GRACE = '30 seconds';

/**
 * On shutdown, a worker gives up this long after it began: an activity that ignores its cancellation
 * (or a task that never ends) cannot hold a stop for ever. Past the grace above, so a registry call
 * in flight still reports its result.
 */
export const WORKER_SHUTDOWN_FORCE = '75 seconds';

/**
 * Background write activities of one account a worker process runs at once: a window's worth (the
 * spec's 20), so a window's burst leaves together (bulk N = 40: 1.06 x the sliding-window limit with 20
 * against 1.09 x with 5). The budget's horizon (WriteBudgetSettings.horizonMs) keeps them from holding
 * the next window's instants while they wait: before it, 20 slots let a backlog reserve a whole window
 * ahead, and the first operator writes after a quiet spell waited 10.3 s and 5.1 s behind it. Every
 * write slot has its own connection (WRITE_CONNECTIONS) and its deadline is checked at the socket
 * (src/registry/send-by.ts), so any number up to the connections is safe from late writes.
 */
export const WRITE_ACTIVITIES_PER_ACCOUNT = 20;

/**
 * Interactive write activities (an operator's, or woken by a webhook) of one account a worker process
 * runs at once, on `registry-writes/{account}/interactive`. They take their instants from the same
 * budget, in the room background writes leave while interactive ones are in use.
 */
export const INTERACTIVE_WRITE_ACTIVITIES_PER_ACCOUNT = 3;

/** The workflows module of `tcr-workflows` (the build's .js, or the .ts source from src). */
export const workflowsPath = moduleFile('workflows/index');

/** The write budget's workflows module, for its own task queue (WRITE_BUDGET_TASK_QUEUE). */
export const budgetWorkflowsPath = moduleFile('workflows/budget/index');

export interface CreateWorkersOptions {
  /** An existing connection (tests); otherwise one is opened from `config.temporal`. */
  connection?: NativeConnection;
  /** A prebuilt bundle (tests); otherwise `workflowsPath` is bundled. */
  workflowBundle?: WorkflowBundleOption;
  /**
   * Payload encryption and failure encoding for every worker (src/codec); default `dataConverter()`,
   * keyed by TCR_PAYLOAD_KEYS_FILE / TCR_PAYLOAD_KEYS. Codecs run in the worker's main thread, not
   * in the workflow sandbox.
   */
  dataConverter?: DataConverter;
  /** Workflow task queue (default `tcr-workflows`). */
  workflowTaskQueue?: string;
  /**
   * Aborted to stop a start in progress (a signal while connecting or bundling): what was made is
   * released and the promise rejects with WorkersStartAborted.
   */
  signal?: AbortSignal;
  /**
   * Traces (src/observability/tracing.ts): every worker gets Temporal's OpenTelemetry interceptors and
   * the workflow-span sink. A prebuilt `workflowBundle` must then include `tracingWorkflowModules`
   * (src/workers/tracing-options.ts). Default: off.
   */
  tracing?: Tracing;
  /**
   * Registration and needs-action gauges per account (src/workers/registration-gauges.ts) on `meter`, refreshed every
   * `everyMs` from visibility; the worker process turns them on with its metrics. Default: off.
   */
  registrationGauges?: {
    meter: MetricMeter;
    everyMs?: number;
    onError?: (account: string, error: unknown) => void;
  };
  /**
   * The approvers file signed fee approvals are verified with (default TCR_FEE_APPROVERS_FILE; none:
   * approvals stay self-declared). Read at the start (an invalid file stops it) and at each check.
   */
  feeApproversFile?: string | undefined;
  /** Override activities per account (tests); default the real registry activities. */
  activitiesFor?: (account: CspAccountConfig) => {
    reads: RegistryReadActivities & Partial<CampaignReadActivities> & Partial<EstateActivities>;
    writes: RegistryWriteActivities & Partial<CampaignWriteActivities>;
  };
}

export type { RunningWorkers } from './running-workers.js';

export function registryResolver(accounts: CspAccountConfig[]): RegistryClientResolver {
  const byName = new Map(accounts.map((a) => [a.name, a]));
  return (name: string): RegistryClient | undefined => {
    const account = byName.get(name);
    if (!account) return undefined;
    // The account's hosts and timeout as loaded (src/config/accounts.ts); 429s go back to Temporal.
    return registryClientFor(registryClientOptions(account, { maxRateLimitRetries: 0 }));
  };
}

/** createWorkers was stopped by its `signal` before the workers were ready; nothing is left open. */
export class WorkersStartAborted extends Error {
  override readonly name = 'WorkersStartAborted';
  constructor() {
    super('stopped before the workers started');
  }
}

/**
 * Creates the workers, not yet running. Each failure names its step (connecting to Temporal at the
 * address, the namespace, the task queue whose worker could not be made) and leaves nothing open:
 * workers already made are released, the registry clients and an owned connection closed. When
 * `options.signal` is aborted, the same clean-up happens after the step in progress and the
 * promise rejects with WorkersStartAborted.
 */
export async function createWorkers(
  config: WorkerConfig,
  options: CreateWorkersOptions = {},
): Promise<RunningWorkers> {
  const approversFile = 'feeApproversFile' in options ? options.feeApproversFile : feeApproversFileFromEnv();
  if (approversFile !== undefined) readFeeApprovers(approversFile);
  const resolve = registryResolver(config.accounts);
  // Every account's client is made now: a configuration the registry client refuses (the base-URL
  // guard, missing credentials) stops the start, naming the account, instead of failing each call.
  for (const account of config.accounts) {
    try {
      resolve(account.name);
    } catch (error) {
      await closeRegistryClients();
      throw new Error(
        `account ${account.name}: ${messageOf(error)} (fix the account in TCR_ACCOUNTS / TCR_ACCOUNTS_FILE)`,
      );
    }
  }
  const { signal } = options;
  const ownsConnection = options.connection === undefined;
  const address = config.temporal.address;
  const namespace = config.temporal.namespace;
  let connection: NativeConnection | undefined = options.connection;
  // Read once (the payload keys come from a file): the workers and the start's client share it.
  let dataConverter: DataConverter | undefined;
  const workers: Worker[] = [];
  const stopIfAborted = () => {
    if (signal?.aborted) throw new WorkersStartAborted();
  };
  try {
    stopIfAborted();
    if (!connection) {
      try {
        connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
      } catch (error) {
        throw new Error(`cannot connect to Temporal at ${address}: ${messageOf(error)}`);
      }
    }
    stopIfAborted();
    await checkNamespace(connection, namespace, address);
    await checkSearchAttributes(connection, namespace);
    stopIfAborted();
    dataConverter = options.dataConverter ?? productDataConverter();
    const traced = options.tracing ? workerTracingOptions(options.tracing) : undefined;
    const create = async (
      workerOptions: Omit<WorkerOptions, 'connection' | 'namespace' | 'dataConverter'>,
    ) => {
      const tracingOptions: Partial<WorkerOptions> = traced
        ? {
            sinks: traced.sinks,
            interceptors: {
              ...traced.interceptors,
              // A prebuilt bundle already holds them (and the SDK would warn that it ignores them).
              ...(workerOptions.workflowBundle ? { workflowModules: [] } : {}),
            },
          }
        : {};
      try {
        workers.push(
          await Worker.create({
            connection,
            namespace,
            dataConverter,
            shutdownForceTime: WORKER_SHUTDOWN_FORCE,
            ...tracingOptions,
            ...workerOptions,
          }),
        );
      } catch (error) {
        throw new Error(
          `cannot create the worker for task queue ${workerOptions.taskQueue} (namespace '${namespace}' at ${address}): ${messageOf(error)}`,
        );
      }
      stopIfAborted();
    };
    await create({
      taskQueue: options.workflowTaskQueue ?? WORKFLOW_TASK_QUEUE,
      // The order systems' Nexus service, and the activities of its outcome workflow (src/nexus).
      nexusServices: [orderSystemServiceHandler],
      // ... and the campaign's check of a signed fee approval (src/activities/fee-approval.ts).
      activities: {
        ...createOrderOutcomeActivities(),
        ...createFeeApprovalActivities({ approversFile }),
      },
      ...(config.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: config.maxCachedWorkflows } : {}),
      ...(options.workflowBundle
        ? { workflowBundle: options.workflowBundle }
        : { workflowsPath, bundlerOptions: { preloadModules: workflowPreloadModules() } }),
    });
    // Signed notifications to order systems: a queue of their own, never a registry call's slot.
    await create({
      taskQueue: NOTIFICATIONS_TASK_QUEUE,
      activities: createNotificationActivities({}),
      maxConcurrentActivityTaskExecutions: 8,
      shutdownGraceTime: ACTIVITY_SHUTDOWN_GRACE,
    });
    // The accounts' write budgets, on their own queue (a test's full bundle holds the workflow too).
    if (config.accounts.length > 0)
      await create({
        taskQueue: WRITE_BUDGET_TASK_QUEUE,
        ...(options.workflowBundle
          ? { workflowBundle: options.workflowBundle }
          : { workflowsPath: budgetWorkflowsPath }),
      });
    for (const account of config.accounts) {
      // The real activities heartbeat while they run (the stubs set a heartbeat timeout), so a worker
      // that dies mid-call is noticed in seconds. Test overrides are taken as given.
      // The account's registry budget, the same one its registry client's limiter holds.
      const budget = account.rateLimits ?? DEFAULT_RATE_LIMITS;
      const writeActivities = {
        ...createRegistryWriteActivities(resolve),
        ...createCampaignWriteActivities(resolve),
      };
      const settings = writeBudgetSettings(budget.writesPer10Seconds);
      const overridden = options.activitiesFor?.(account);
      const activities = overridden
        ? { ...overridden, interactiveWrites: overridden.writes }
        : {
            reads: withHeartbeat({
              ...createRegistryReadActivities(resolve),
              ...createCampaignReadActivities(resolve),
              ...createEstateActivities(resolve, {
                ...(options.workflowTaskQueue ? { workflowTaskQueue: options.workflowTaskQueue } : {}),
              }),
            }),
            writes: withHeartbeat(withWriteBudget(writeActivities, settings)),
            interactiveWrites: withHeartbeat(
              withWriteBudget(writeActivities, settings, { interactive: true }),
            ),
          };
      await create({
        taskQueue: registryReadsTaskQueue(account.name),
        activities: activities.reads,
        maxTaskQueueActivitiesPerSecond: budget.getsPerSecond,
        shutdownGraceTime: ACTIVITY_SHUTDOWN_GRACE,
      });
      await create({
        taskQueue: registryWritesTaskQueue(account.name),
        activities: activities.writes,
        maxConcurrentActivityTaskExecutions: WRITE_ACTIVITIES_PER_ACCOUNT,
        // One poll at a time: a freed slot takes the highest-priority task waiting when it asks, and
        // at most one task is in hand ahead of an operator's that arrives meanwhile.
        maxConcurrentActivityTaskPolls: 1,
        // A backstop only: the budget workflow paces the writes themselves.
        maxTaskQueueActivitiesPerSecond: budget.writesPer10Seconds,
        shutdownGraceTime: ACTIVITY_SHUTDOWN_GRACE,
      });
      // An operator's writes and those a webhook woke: slots of their own, never held by a backlog.
      await create({
        taskQueue: registryInteractiveWritesTaskQueue(account.name),
        activities: activities.interactiveWrites,
        maxConcurrentActivityTaskExecutions: INTERACTIVE_WRITE_ACTIVITIES_PER_ACCOUNT,
        maxConcurrentActivityTaskPolls: 1,
        maxTaskQueueActivitiesPerSecond: budget.writesPer10Seconds,
        shutdownGraceTime: ACTIVITY_SHUTDOWN_GRACE,
      });
    }
  } catch (error) {
    await releaseUnstarted(workers, ownsConnection ? connection : undefined);
    throw error;
  }
  const client = new Client({ connection, namespace, dataConverter });
  await startWriteBudgets(client, config);
  const schedules = await sweepSchedules(client, config, options);
  const gauges = options.registrationGauges
    ? startRegistrationGauges({
        client,
        accounts: config.accounts.map((a) => a.name),
        ...options.registrationGauges,
      })
    : undefined;
  return {
    ...runningWorkers(workers, connection, ownsConnection, () => gauges?.stop()),
    sweepSchedules: schedules,
  };
}

/**
 * Starts each account's write budget workflow if it is not running, so the first write after a start
 * does not wait for it to start (in one bulk run each way, the first write left at 0.93 s instead of
 * 1.33 s). Best effort: a budget that cannot be started here starts on its first reservation, as
 * before.
 */
async function startWriteBudgets(client: Client, config: WorkerConfig): Promise<void> {
  await Promise.all(
    config.accounts.map((account) => startWriteBudget(client, account.name).catch(() => undefined)),
  );
}

/**
 * Each account's sweep Schedule (config.sweep), set through a client on the workers' connection. A
 * Schedule that cannot be set is reported in the outcomes; it does not stop the workers.
 */
function sweepSchedules(
  client: Client,
  config: WorkerConfig,
  options: CreateWorkersOptions,
): Promise<SweepScheduleOutcome[]> {
  if (!config.sweep?.every) return Promise.resolve([]);
  return ensureSweepSchedules(client, config, options.workflowTaskQueue);
}
