/**
 * The registry's `referenceId`: the CSP's own name for a brand or campaign. Zod-free, so workflow
 * code may import it (src/contracts/ids.ts builds workflow ids from it; ./schemas.ts checks it).
 */

/** A CSP reference: what an order system names a brand or campaign by. Safe in ids and URLs. */
export const referencePattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
