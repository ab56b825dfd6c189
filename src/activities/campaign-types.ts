/** Moved to src/contracts/campaign-activity-types.ts (the contracts layer: see test/layout/imports.test.ts); this re-export keeps old importers building. */
export * from '../contracts/campaign-activity-types.js';
