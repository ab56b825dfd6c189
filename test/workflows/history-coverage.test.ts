/**
 * Every workflow type the workers run and every patch id the workflows record has a recorded history
 * in test/fixtures/histories (replayed by replay.test.ts), so a release that reorders their commands
 * fails there before it reaches a running workflow (issue 36, item 1). A patch is covered both ways:
 * a history that carries its marker (the new branch) and, for each workflow type that records it, one
 * of that type without it (the old branch).
 *
 * OWED lists what could not be recorded yet, each with why. It may only shrink: a NEW workflow type
 * or patch id without a history fails here, and so does an OWED entry whose history has since been
 * recorded (remove the entry).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as workflows from '../../src/workflows/index.js';
import { patchIds } from '../../src/workflows/patches.js';

const OWED_TYPES: Record<string, string> = {
  // recording owed: estateImportWorkflow: test/workflows estate suites do not call recordHistory yet.
  estateImportWorkflow: 'no recording test yet',
  // recording owed: estateSweepWorkflow: as above.
  estateSweepWorkflow: 'no recording test yet',
  // recording owed: parkedEvents: no suite records the parked-events workflow's history yet.
  parkedEvents: 'no recording test yet',
};

const OWED_PATCHES: Record<string, string> = {
  // recording owed: estate-paging-by-total: only estate workflows record it, and they have no history yet.
  'estate-paging-by-total': 'estate workflows unrecorded',
};

interface Recorded {
  file: string;
  type: string;
  patches: Set<string>;
}

const dir = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));

interface HistoryEvent {
  workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } };
  markerRecordedEventAttributes?: {
    markerName?: string;
    details?: Record<string, { payloads?: { data?: string }[] }>;
  };
}

function read(file: string): Recorded {
  const { history } = JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as {
    history: { events: HistoryEvent[] };
  };
  const type = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
  const patches = new Set<string>();
  for (const event of history.events) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') continue;
    const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
    if (!data) throw new Error(`${file}: a core_patch marker without patch-data`);
    patches.add((JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { id: string }).id);
  }
  return { file, type, patches };
}

const recorded = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map(read);
const workflowTypes = Object.entries(workflows)
  .filter(([, value]) => typeof value === 'function')
  .map(([name]) => name);

describe('recorded histories cover every workflow type and patch', () => {
  it('reads the workflow type of every history', () => {
    expect(
      recorded.filter((r) => !workflowTypes.includes(r.type)).map((r) => `${r.file}: ${r.type}`),
    ).toEqual([]);
  });

  it('every workflow type exported by src/workflows/index.ts has a history (or is owed)', () => {
    const types = new Set(recorded.map((r) => r.type));
    const missing = workflowTypes.filter((t) => !types.has(t) && !(t in OWED_TYPES));
    expect(missing, 'workflow types without a recorded history').toEqual([]);
    const paid = Object.keys(OWED_TYPES).filter((t) => types.has(t) || !workflowTypes.includes(t));
    expect(paid, 'OWED_TYPES entries that are recorded (or gone): remove them').toEqual([]);
  });

  it('every patch id in src/workflows/patches.ts has a history carrying its marker (or is owed)', () => {
    const carried = new Set(recorded.flatMap((r) => [...r.patches]));
    const missing = patchIds.filter((p) => !carried.has(p) && !(p in OWED_PATCHES));
    expect(missing, 'patch ids no recorded history carries').toEqual([]);
    const paid = Object.keys(OWED_PATCHES).filter((p) => carried.has(p) || !patchIds.includes(p));
    expect(paid, 'OWED_PATCHES entries that are recorded (or gone): remove them').toEqual([]);
    const unknown = [...carried].filter((p) => !patchIds.includes(p));
    expect(unknown, 'markers of patch ids no longer in patches.ts (deprecate, never delete)').toEqual([]);
  });

  it('each patch has, per workflow type recording it, a history of that type from before it (the old branch)', () => {
    const missing: string[] = [];
    for (const patch of patchIds) {
      const types = new Set(recorded.filter((r) => r.patches.has(patch)).map((r) => r.type));
      for (const type of types) {
        if (!recorded.some((r) => r.type === type && !r.patches.has(patch)))
          missing.push(`${patch} (${type})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
