/**
 * Workflow-code modules a worker thread instantiates once, for every workflow it runs, instead of
 * once per workflow.
 *
 * The SDK runs every workflow of a worker thread in one V8 context, but gives each workflow its own
 * copy of every module of the bundle it imports (so module state cannot leak between workflows): each
 * cached workflow holds its own instance of every function and constant table of our workflow code.
 * Modules named here are loaded once when the context starts, deep-frozen and shared (the SDK's
 * `bundlerOptions.preloadModules`). Only modules with no state of their own qualify: pure functions and
 * constant tables that import nothing of `@temporalio/workflow` (which holds each workflow's state);
 * test/workers/workflow-preload.test.ts checks that of every module listed, and of what they import.
 */
import { moduleFile } from './module-file.js';

/** Paths under src/ (or dist/), without extension. */
export const PRELOADED_WORKFLOW_MODULES = [
  'common/error-message',
  'contracts/activity-types',
  'contracts/fingerprint',
  'contracts/ids',
  'contracts/priorities',
  'contracts/search-attributes',
  'contracts/task-queues',
  'registry/brand-update-groups',
  'registry/field-errors',
  'registry/reference',
  'registry/request-limits',
  'registry/rules',
  'workflows/brand/phases',
  'workflows/campaign-mno',
  'workflows/campaign/apply',
  'workflows/campaign/derive',
  'workflows/campaign/phases',
  'workflows/entity/audit',
  'workflows/entity/delivery-dedupe',
  'workflows/entity/phases',
  'workflows/entity/registry-failure',
  'workflows/patches',
  'workflows/request-checks',
  'workflows/vet/derive',
] as const;

/** `bundlerOptions.preloadModules` / `bundleWorkflowCode({ preloadModules })` for the product's bundles. */
export function workflowPreloadModules(): string[] {
  return PRELOADED_WORKFLOW_MODULES.map(moduleFile);
}
