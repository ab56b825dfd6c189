/**
 * The Web UI tells the story (issue 34, item 7): a brand's current details (the workflow metadata
 * query the Web UI and `temporal workflow metadata` read) show its phase, what it waits for and until
 * when, and what an operator must do; its start carries a summary. No order data appears in them.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { FakeRegistry } from '../fixtures/workflow-fake-registry.js';
import { publicProfitRegistration, waitForStatus, withWorkers } from '../fixtures/workflow-harness.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await timeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

interface Metadata {
  currentDetails?: string;
}
const waitingIn = (phase: BrandStatus['phase']) => (s: BrandStatus) =>
  s.phase === phase && s.waitingFor !== undefined;

describe("a brand's current details", () => {
  it('show the phase, what it waits for and until when, then the needs-action past the deadline', async () => {
    const fake = new FakeRegistry();
    const registration = publicProfitRegistration();
    await withWorkers(env, fake.activities(), async (w) => {
      const { handle, status } = await w.orderBrand({
        brand: registration,
        until: waitingIn('awaiting-contact-verification'),
      });
      const metadata = (await handle.query('__temporal_workflow_metadata')) as Metadata;
      const details = metadata.currentDetails ?? '';
      expect(details).toContain('phase **awaiting-contact-verification**');
      expect(details).toContain(`Waits for: ${status.waitingFor!.what}`);
      expect(details).toContain(`Until: ${status.waitingFor!.until}`);
      expect(details).toContain(`brandId \`${status.brandId}\``);

      await env.sleep('3 days');
      await waitForStatus(handle, (s) => s.needsAction.some((a) => a.key === 'contact-verification-overdue'));
      const overdue = ((await handle.query('__temporal_workflow_metadata')) as Metadata).currentDetails ?? '';
      expect(overdue).toMatch(
        /Needs action \(1\):\n\n- `contact-verification-overdue` since .*: remind the business contact/,
      );
      // Its registry calls and timers carry summaries: which call and why, which wait.
      const history = await handle.fetchHistory();
      const summaries = (history.events ?? [])
        .map((e) => e.userMetadata?.summary?.data)
        .filter((d): d is Uint8Array => d instanceof Uint8Array)
        .map((d) => JSON.parse(Buffer.from(d).toString('utf8')) as string);
      expect(summaries).toContain('getBrand: scheduled poll');
      expect(
        summaries.some((s) => /^(next registry poll|deadline): phase awaiting-contact-verification$/.test(s)),
      ).toBe(true);

      for (const personal of [
        registration.ein,
        registration.email,
        registration.phone,
        registration.businessContactEmail,
      ].filter(Boolean))
        expect(overdue).not.toContain(String(personal));
    });
  });
});
