/**
 * Every workflow the `tcr-workflows` task queue runs. Workers bundle this module
 * (src/workers/create-workers.ts); it must import nothing with side effects.
 */
export { brandWorkflow } from './brand/workflow.js';
export { writeBudget } from './budget/write-budget.js';
export { campaignWorkflow } from './campaign/workflow.js';
export { parkedEvents } from './parked-events.js';
export { vetWorkflow } from './vet/workflow.js';
