/**
 * Properties of the workflows' pure decisions, over generated inputs (fast-check; a failure prints
 * its seed and the smallest input that breaks the property):
 * - every registry failure falls in exactly one class, and only request refusals refuse an operation;
 * - a brand record decides one phase, `deleted` only when the registry says the brand is not ACTIVE;
 * - a 404 ends a brand only after the confirmation window and a list that answers without it;
 * - phase tables: final phases allow nothing and are never left; every phase before final allows
 *   cancel (except a PENDING share, which the registry forbids rescinding).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BrandSnapshot } from '../../src/contracts/activity-types.js';
import type { BrandPhase } from '../../src/contracts/brand.js';
import {
  deriveBrandPhase,
  NOT_FOUND_CONFIRM_MS,
  notFoundVerdict,
  vetAction,
} from '../../src/workflows/brand/derive.js';
import { brandPhases } from '../../src/workflows/brand/phases.js';
import { campaignPhases } from '../../src/workflows/campaign/phases.js';
import { guardedPhase, type PhaseTable, refuseUnlessAllowed } from '../../src/workflows/entity/phases.js';
import {
  classifyRegistryFailure,
  describeFailure,
  type RegistryFailureClass,
  requestRefusalClasses,
} from '../../src/workflows/entity/registry-failure.js';

const classes: RegistryFailureClass[] = [
  'rejected',
  'invalid-request',
  'unauthorized',
  'forbidden',
  'not-found',
  'rate-limited',
  'unavailable',
  'unparsable',
  'configuration',
];

const failureTypes = [
  'RegistryValidation',
  'RegistryInvalidRequest',
  'RegistryUnauthorized',
  'RegistryNotFound',
  'RegistryRateLimited',
  'RegistryTransient',
  'RegistryUnparsable',
  'RegistryConfiguration',
  'UnknownAccount',
  'SomethingNew',
];

const activityFailure = (cause: Error) =>
  new ActivityFailure(
    'activity failed',
    'registerBrand',
    '1',
    RetryState.MAXIMUM_ATTEMPTS_REACHED,
    undefined,
    cause,
  );

describe('registry failure classes', () => {
  it('every activity failure, whatever its type, status and details, falls in one known class', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...failureTypes),
        fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
        fc.string(),
        fc.array(fc.record({ description: fc.string(), fields: fc.array(fc.string()) }), { maxLength: 3 }),
        (type, status, message, errors) => {
          const failure = classifyRegistryFailure(
            activityFailure(ApplicationFailure.create({ type, message, details: [{ status, errors }] })),
          );
          expect(failure).toBeDefined();
          expect(classes).toContain(failure!.class);
          expect(failure!.message).toBe(message);
          // Only the registry's own refusal of the request (400) or the client's checks refuse an
          // operation; credentials, permissions, outages and surprises are faults the loop retries.
          if (requestRefusalClasses.includes(failure!.class))
            expect(['RegistryValidation', 'RegistryInvalidRequest']).toContain(type);
          if (type === 'RegistryValidation' && status === 403) expect(failure!.class).toBe('forbidden');
          if (type === 'RegistryValidation' && status === 404) expect(failure!.class).toBe('not-found');
          expect(describeFailure('read brand', failure!)).toMatch(/^read brand: /);
        },
      ),
    );
  });

  it('a timeout or a non-application cause is `unavailable`; anything that is not an activity failure is not a registry failure', () => {
    const timeout = classifyRegistryFailure(
      activityFailure(new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE)),
    );
    expect(timeout?.class).toBe('unavailable');
    expect(timeout?.message).toMatch(/timed out/);
    fc.assert(
      fc.property(fc.string(), (message) => {
        expect(classifyRegistryFailure(new Error(message))).toBeUndefined();
        expect(classifyRegistryFailure(ApplicationFailure.create({ message }))).toBeUndefined();
      }),
    );
  });
});

const snapshotArb: fc.Arbitrary<BrandSnapshot> = fc.record({
  brandId: fc.constant('B123456'),
  entityType: fc.constantFrom(
    'PRIVATE_PROFIT',
    'PUBLIC_PROFIT',
    'NON_PROFIT',
    'GOVERNMENT',
    'SOLE_PROPRIETOR',
    '',
  ),
  status: fc.constantFrom('ACTIVE', 'DELETED', 'SUSPENDED', ''),
  identityStatus: fc.constantFrom(
    'VERIFIED',
    'VETTED_VERIFIED',
    'UNVERIFIED',
    'SELF_DECLARED',
    'SOMETHING_NEW',
  ),
  businessContactEmailVerifiedDate: fc.option(fc.constant('2026-01-01T00:00:00Z'), { nil: null }),
  mobilePhoneVerifiedDate: fc.option(fc.constant('2026-01-01T00:00:00Z'), { nil: null }),
  optionalAttributes: fc.constant({}),
});

const brandPhaseNames = Object.keys(brandPhases) as BrandPhase[];

describe('the brand phase a registry record decides', () => {
  it('is one of the table, deleted exactly when the record is not ACTIVE, never registering or cancelled', () => {
    fc.assert(
      fc.property(
        snapshotArb,
        fc.constantFrom('PRIVATE_PROFIT', 'PUBLIC_PROFIT', 'GOVERNMENT', 'SOLE_PROPRIETOR'),
        fc.boolean(),
        fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2029, 0, 1) }),
        (snapshot, entityType, appealPending, now) => {
          const decision = deriveBrandPhase(snapshot, { entityType, appealPending, now });
          expect(brandPhaseNames).toContain(decision.phase);
          expect(decision.phase === 'deleted').toBe(snapshot.status !== 'ACTIVE');
          expect(['registering', 'cancelled', 'registration-rejected']).not.toContain(decision.phase);
          // Same input, same decision: no hidden clock or state.
          expect(deriveBrandPhase(snapshot, { entityType, appealPending, now })).toEqual(decision);
          if (decision.phase === 'needs-correction') expect(decision.identity.set).toBe(true);
          else expect(decision.identity.set).toBe(false);
          if (decision.phase === 'appeal-pending') expect(appealPending).toBe(true);
        },
      ),
    );
  });

  it('a verified PUBLIC_PROFIT brand is ready only once its business contact verified', () => {
    fc.assert(
      fc.property(
        snapshotArb,
        fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2029, 0, 1) }),
        (s, now) => {
          const snapshot = {
            ...s,
            status: 'ACTIVE',
            entityType: 'PUBLIC_PROFIT',
            identityStatus: 'VERIFIED',
          };
          const { phase } = deriveBrandPhase(snapshot, {
            entityType: 'PUBLIC_PROFIT',
            appealPending: false,
            now,
          });
          expect(phase).toBe(
            snapshot.businessContactEmailVerifiedDate ? 'ready' : 'awaiting-contact-verification',
          );
        },
      ),
    );
  });
});

describe('a 404 on the brand', () => {
  it('ends it only after the confirmation window and a list that answers without it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 12 }),
        fc.integer({ min: 0, max: 2 * 60 * 60 * 1000 }),
        fc.constantFrom('absent', 'present', 'failed', 'not-asked' as const),
        (first404At, elapsed, list) => {
          const verdict = notFoundVerdict({ first404At, now: first404At + elapsed, list });
          expect(verdict === 'deleted').toBe(list === 'absent' && elapsed >= NOT_FOUND_CONFIRM_MS);
          if (list === 'present') expect(verdict).toBe('present');
        },
      ),
    );
  });
});

function checkTable<P extends string, K extends string>(
  name: string,
  table: PhaseTable<P, K>,
  cancelForbidden: readonly P[],
) {
  describe(`the ${name} phase table`, () => {
    const phases = Object.keys(table) as P[];
    const operations = [...new Set(phases.flatMap((p) => table[p].allows))];

    it('final phases allow nothing and are never left; others allow cancel unless the registry forbids it', () => {
      for (const phase of phases) {
        const row = table[phase];
        if (row.final) {
          expect(row.allows, phase).toEqual([]);
          expect(row.poll, phase).toBe('none');
        } else if (!cancelForbidden.includes(phase)) {
          expect(row.allows, phase).toContain('cancel');
        }
      }
      fc.assert(
        fc.property(fc.constantFrom(...phases), fc.constantFrom(...phases), (from, to) => {
          const next = guardedPhase(table, from, to);
          expect(next).toBe(table[from].final ? from : to);
        }),
      );
    });

    it('an operation is refused, naming the phase, exactly when the row does not allow it', () => {
      fc.assert(
        fc.property(fc.constantFrom(...phases), fc.constantFrom(...operations), (phase, operation) => {
          const allowed = !table[phase].final && table[phase].allows.includes(operation);
          let error: unknown;
          try {
            refuseUnlessAllowed(table, phase, operation);
          } catch (e) {
            error = e;
          }
          expect(error === undefined).toBe(allowed);
          if (error) expect(String(error)).toContain(phase);
        }),
      );
    });
  });
}

checkTable('brand', brandPhases, []);
// winding-down: already cancelled (renewal off at the registry, watched until it expires).
checkTable('campaign', campaignPhases, ['share-pending', 'winding-down']);

describe('sequences of registry records', () => {
  it('a brand moved through any sequence of records by the guarded transition never leaves a final phase', () => {
    fc.assert(
      fc.property(
        fc.array(snapshotArb, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 29 }),
        (snapshots, cancelAt) => {
          let phase: BrandPhase = 'registering';
          let final: BrandPhase | undefined;
          snapshots.forEach((snapshot, i) => {
            const proposed: BrandPhase =
              i === cancelAt
                ? 'cancelled'
                : deriveBrandPhase(snapshot, { entityType: 'PRIVATE_PROFIT', appealPending: false, now: 0 })
                    .phase;
            phase = guardedPhase(brandPhases, phase, proposed);
            if (final) expect(phase).toBe(final);
            if (brandPhases[phase].final) final ??= phase;
          });
        },
      ),
    );
  });

  it('every needs-action a decision raises carries an action and a reason', () => {
    fc.assert(
      fc.property(
        snapshotArb,
        fc.record({
          seq: fc.integer({ min: 1, max: 50 }),
          state: fc.constantFrom(
            'ordering',
            'pending',
            'under-review',
            'active',
            'failed',
            'expired',
            'timed-out',
            'rejected',
            'cancelled',
          ),
          reasons: fc.option(fc.array(fc.string(), { maxLength: 3 }), { nil: undefined }),
          detail: fc.option(fc.string(), { nil: undefined }),
        }),
        fc.option(fc.string(), { nil: undefined }),
        (snapshot, progress, deadline) => {
          const decision = deriveBrandPhase(snapshot, {
            entityType: 'PUBLIC_PROFIT',
            appealPending: false,
            now: 0,
          });
          const changes = [
            decision.identity,
            vetAction(progress.seq, { ...progress, cause: 'poll' } as never, deadline),
          ];
          for (const change of changes)
            if (change.set) {
              expect(change.action.trim().length).toBeGreaterThan(0);
              expect(change.reason.trim().length).toBeGreaterThan(0);
            }
        },
      ),
    );
  });
});
