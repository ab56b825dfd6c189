/**
 * The workflows of the write budget's own task queue (src/contracts/write-budget.ts,
 * WRITE_BUDGET_TASK_QUEUE): workers bundle this small module for it, so a budget's workflow tasks never
 * wait behind the entity workflows' on `tcr-workflows`. It must import nothing with side effects.
 */
export { writeBudget } from './write-budget.js';
