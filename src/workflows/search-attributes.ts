/** Moved to src/contracts/search-attributes.ts (the contracts layer: see test/layout/imports.test.ts); this re-export keeps old importers building. */
export * from '../contracts/search-attributes.js';
