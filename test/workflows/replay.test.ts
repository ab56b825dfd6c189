/**
 * Determinism guard: replays histories recorded from the workflow suites
 * (TCR_RECORD_HISTORIES=1 npx vitest run test/workflows) against the current workflow code. A change
 * that alters the commands a recorded history expects fails here; such a change needs workflow
 * versioning (patched / deprecatePatch), then a fresh recording.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
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
