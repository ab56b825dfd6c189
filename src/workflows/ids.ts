/** Moved to src/contracts/ids.ts (the contracts layer: see test/layout/imports.test.ts); this re-export keeps old importers building. */
export * from '../contracts/ids.js';
