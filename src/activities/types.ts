/** Moved to src/contracts/activity-types.ts (the contracts layer: see test/layout/imports.test.ts); this re-export keeps old importers building. */
export * from '../contracts/activity-types.js';
