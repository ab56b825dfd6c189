/** Moved to src/contracts/signals.ts (the contracts layer: see test/layout/imports.test.ts); this re-export keeps old importers building. */
export * from '../contracts/signals.js';
