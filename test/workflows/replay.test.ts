/**
 * Determinism guard: replays histories recorded from the workflow suites
 * (TCR_RECORD_HISTORIES=1 npx vitest run test/workflows) against the current workflow code. A change
 * that alters the commands a recorded history expects fails here; such a change needs workflow
 * versioning (patched / deprecatePatch), then a fresh recording.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Resource } from '@opentelemetry/resources';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { tracingWorkflowModules } from '../../src/workers/tracing-options.js';
import { workflowsPath } from '../fixtures/workflow-harness.js';
import { workflowBundle } from '../support/temporal-env.js';

const dir = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('replay of recorded brand, vet and campaign histories', () => {
  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it.each(files)('%s replays without nondeterminism', async (file) => {
    const { workflowId, history } = JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as {
      workflowId: string;
      history: unknown;
    };
    await Worker.runReplayHistory(
      { workflowBundle: await workflowBundle(workflowsPath) },
      history,
      workflowId,
    );
  });
});

/**
 * Tracing turned on for workflows that ran without it: the same histories replay with the tracing
 * interceptors bundled (src/workers/tracing-options.ts). They only choose span parents; this guards
 * that they add no command and no await that would move one.
 */
describe('replay with tracing turned on', () => {
  it.each(files)('%s replays with the tracing interceptors', async (file) => {
    const { workflowId, history } = JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as {
      workflowId: string;
      history: unknown;
    };
    await Worker.runReplayHistory(
      {
        workflowBundle: await workflowBundle(workflowsPath, tracingWorkflowModules),
        sinks: { exporter: makeWorkflowExporter(new NoopSpanProcessor(), new Resource({})) },
      },
      history,
      workflowId,
    );
  });
});
