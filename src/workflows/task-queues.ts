/** Moved to src/contracts/task-queues.ts (the contracts layer: see test/layout/imports.test.ts); this re-export keeps old importers building. */
export * from '../contracts/task-queues.js';
