/** The workflow bundle of ./codec-workflows.ts with the product's failure converter, and its activities. */
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { failureConverterPath } from '../../src/codec/index.js';
import type { CodecTestActivities } from './codec-workflows.js';

export function codecWorkflowsBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: new URL('./codec-workflows.ts', import.meta.url).pathname,
    failureConverterPath,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
  });
}

/** `lookUp` echoes what it gets, so activity inputs and results both carry the data. */
export const codecActivities: CodecTestActivities = {
  async lookUp(d) {
    return { ein: d.ein, firstName: d.firstName };
  },
};
