/**
 * Registrations by phase, needs-action count and oldest age per account, from visibility (dev server:
 * the test server has no visibility store). Two brands wait for a correction, raised about two seconds
 * apart: the figures say 2 in needs-correction, 2 open and the first one's age; once the first is
 * corrected, 1 open and the second one's age, and 1 brand ready. The gauges publish them per account
 * on a meter.
 */
import type { MetricGauge, MetricMeter, MetricTags } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { correctBrand } from '../../src/orders/index.js';
import {
  needsActionFigures,
  registrationsByPhase,
  startRegistrationGauges,
} from '../../src/workers/registration-gauges.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import { waitForStatus, withWorkers } from '../fixtures/workflow-harness.js';
import { devServerEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await devServerEnv();
}, 60_000);
afterAll(async () => {
  await env?.teardown();
});

/** Polls `read` (visibility is eventually consistent) until `ok`, or fails with the last value. */
async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`${what}: last ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The age (s) at `now` of the need `status` shows. */
const ageOf = (status: BrandStatus, now: number) => (now - Date.parse(status.needsAction[0]!.since)) / 1000;

/**
 * The figures of `account` as at the moment they were asked for (`now`): the bisection takes dozens of
 * visibility queries, so an age taken after it returns would be older by their time.
 */
const figuresAt = async (client: TestWorkflowEnvironment['client'], account: string) => {
  const now = Date.now();
  return { ...(await needsActionFigures(client, account, now)), now };
};

/** A meter that keeps each gauge's last value per account. */
function recordingMeter() {
  const values = new Map<string, number>();
  const gauge = (name: string): MetricGauge =>
    ({
      set(value: number, tags?: MetricTags) {
        const labels = [tags?.account, tags?.kind, tags?.phase].filter((l) => l !== undefined);
        values.set(`${name}{${labels.join('/')}}`, value);
      },
      withTags() {
        return this;
      },
    }) as unknown as MetricGauge;
  const meter = { createGauge: gauge } as unknown as MetricMeter;
  return { meter, values };
}

describe('needs-action gauges', () => {
  it('count registrations by phase, the open needs-action of an account and the age of the oldest, from visibility', async () => {
    const fake = new FakeRegistry();
    fake.identityOnRegister = () => 'UNVERIFIED';
    const activities = { reads: fake.readActivities(), writes: fake.writeActivities() };
    await withWorkers(env, activities, async (w) => {
      expect(await needsActionFigures(env.client, w.account)).toEqual({ open: 0, oldestSeconds: 0 });
      const first = await w.orderBrand({ until: (s) => s.needsAction.length > 0 });
      await new Promise((r) => setTimeout(r, 2_000));
      const second = await w.orderBrand({ until: (s) => s.needsAction.length > 0 });

      const both = await eventually(
        () => figuresAt(env.client, w.account),
        (f) => f.open === 2,
        'two open',
      );
      // Within the bisection's second and the rounding's half.
      expect(Math.abs(both.oldestSeconds - ageOf(first.status!, both.now))).toBeLessThanOrEqual(1.5);
      expect(both.oldestSeconds).toBeGreaterThanOrEqual(2);
      const phases = await registrationsByPhase(env.client, w.account);
      expect(phases.filter((c) => c.running > 0)).toEqual([
        { kind: 'brand', phase: 'needs-correction', running: 2 },
      ]);
      // Every phase that is not final is counted, for both kinds, zeros included.
      expect(phases.map((c) => `${c.kind}/${c.phase}`)).toEqual(
        expect.arrayContaining(['brand/ready', 'campaign/running', 'campaign/deactivated']),
      );
      expect(phases.map((c) => c.phase)).not.toContain('cancelled');
      // Another account sees none of them.
      expect(await needsActionFigures(env.client, `${w.account}-other`)).toEqual({
        open: 0,
        oldestSeconds: 0,
      });

      // The gauges publish the same, per account.
      const { meter, values } = recordingMeter();
      const gauges = startRegistrationGauges({
        client: env.client,
        meter,
        accounts: [w.account],
        everyMs: 100,
      });
      try {
        await eventually(
          async () => values.get(`tcr_needs_action_open{${w.account}}`),
          (v) => v === 2,
          'gauge open',
        );
        expect(values.get(`tcr_needs_action_oldest_seconds{${w.account}}`)).toBeGreaterThanOrEqual(2);
        expect(values.get(`tcr_registrations{${w.account}/brand/needs-correction}`)).toBe(2);
        expect(values.get(`tcr_registrations{${w.account}/campaign/running}`)).toBe(0);
      } finally {
        await gauges.stop();
      }

      // The first is corrected (revet: VERIFIED), its need cleared: the second is now the oldest.
      const done = await correctBrand(env.client, first.reference, {
        patch: { email: 'ops@acme.example' },
        revet: true,
      });
      expect(done.outcome).toBe('done');
      await waitForStatus(first.handle, (s) => s.needsAction.length === 0);
      const one = await eventually(
        () => figuresAt(env.client, w.account),
        (f) => f.open === 1,
        'one open',
      );
      expect(Math.abs(one.oldestSeconds - ageOf(second.status!, one.now))).toBeLessThanOrEqual(1.5);
      expect(one.oldestSeconds).toBeLessThan(ageOf(first.status!, one.now) - 1);
      const after = await eventually(
        () => registrationsByPhase(env.client, w.account),
        (counts) => counts.some((c) => c.phase === 'ready' && c.running === 1),
        'one ready',
      );
      expect(after.filter((c) => c.running > 0)).toEqual([
        { kind: 'brand', phase: 'needs-correction', running: 1 },
        { kind: 'brand', phase: 'ready', running: 1 },
      ]);
    });
  });
});
