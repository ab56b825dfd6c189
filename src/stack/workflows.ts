/**
 * The workflows the local stack's worker runs: every product workflow, including the campaign
 * workflow (src/workflows/index.ts does not export it yet). Workflow code only: bundled, never imported
 * by the stack at run time.
 */

export { campaignWorkflow } from '../workflows/campaign.js';
export * from '../workflows/index.js';
