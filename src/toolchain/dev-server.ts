import { allSearchAttributeKeys, searchAttributeCliType } from '../contracts/search-attributes.js';

/** `--search-attribute Name=Type` arguments that register the project's attributes with a dev server. */
export function searchAttributeFlags(): string[] {
  return allSearchAttributeKeys.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${searchAttributeCliType[key.type]}`,
  ]);
}

/**
 * Dynamic configuration every dev server of the project runs with: one partition per task queue.
 *
 * The registry's budget is held by task-queue rate limits (`maxTaskQueueActivitiesPerSecond` on
 * `registry-writes/{account}` and `registry-reads/{account}`). Temporal splits that rate evenly over
 * the queue's read partitions (4 by default) and places each new task on a random partition, so
 * 2 writes/s becomes 0.5/s per partition, and the queue runs at the full rate only while all four
 * partitions hold a backlog. As partitions drain unevenly the rate falls to 1.5, 1 and 0.5 per
 * second: the bulk benchmark lost a fifth of the write budget that way. One partition makes the
 * limit exact. A production cluster needs the same setting for the registry queues (docs/operations.md).
 *
 * Registry calls carry a task-queue priority (src/workflows/entity/stubs.ts: operator 1, webhook 2,
 * order 3, poll 4). Temporal server 1.29 (the dev server of CLI 1.5.1) dispatches by priority only
 * with the priority-enabled matcher, `matching.useNewMatcher` (off by default until server 1.31);
 * without it the queue stays FIFO and the key is only recorded in history. It orders a backlog held
 * back by the queue's rate limit too: each permit goes to the highest-priority task waiting.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, string>> = {
  'matching.numTaskqueueReadPartitions': '1',
  'matching.numTaskqueueWritePartitions': '1',
  'matching.useNewMatcher': 'true',
};

/** `--dynamic-config-value KEY=VALUE` arguments for DEV_SERVER_DYNAMIC_CONFIG. */
export function dynamicConfigFlags(): string[] {
  return Object.entries(DEV_SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${value}`,
  ]);
}

export interface DevServerOptions {
  ip: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** SQLite file that keeps workflows across restarts; undefined: in memory, gone at exit. */
  dbFile?: string;
}

/** Arguments for `temporal server start-dev` with persistence, the Web UI and our search attributes. */
export function devServerArgs(opts: DevServerOptions): string[] {
  return [
    'server',
    'start-dev',
    '--ip',
    opts.ip,
    '--port',
    String(opts.port),
    '--ui-port',
    String(opts.uiPort),
    '--namespace',
    opts.namespace,
    ...(opts.dbFile !== undefined ? ['--db-filename', opts.dbFile] : []),
    '--log-format',
    'pretty',
    '--log-level',
    'warn',
    ...searchAttributeFlags(),
    ...dynamicConfigFlags(),
  ];
}
