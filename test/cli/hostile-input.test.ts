/**
 * Hostile input at the CLI: `--set` field names that would reach Object.prototype, and registry
 * text carrying terminal control sequences into printed statuses.
 */
import { describe, expect, it } from 'vitest';
import { reportLines } from '../../src/cli/accounts.js';
import { UsageError } from '../../src/cli/errors.js';
import { renderParked } from '../../src/cli/events.js';
import { fieldsFromFlags } from '../../src/cli/input.js';
import { oneLine, printable } from '../../src/cli/printable.js';
import { renderStatus, summarizeStatus } from '../../src/cli/render-status.js';
import { subscriptionLine } from '../../src/cli/webhooks.js';
import type { BrandStatus } from '../../src/contracts/brand.js';
import { emptyAuditTrail } from '../../src/workflows/entity/audit.js';
import { tcr } from './support.js';

const ESC = '\u001b';

describe('--set field names', () => {
  it('refuses __proto__, constructor and prototype anywhere in the path, and Object.prototype stays clean', () => {
    for (const field of [
      '__proto__.polluted',
      'a.__proto__.polluted',
      'constructor.prototype.polluted',
      'prototype',
      'x.constructor',
    ]) {
      expect(() => fieldsFromFlags([`${field}=1`], undefined, 'help'), field).toThrow(UsageError);
      expect(() => fieldsFromFlags(undefined, [`${field}=1`], 'help'), field).toThrow(/not allowed/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names the flag and the field, and refuses empty segments', () => {
    expect(() => fieldsFromFlags(['a.__proto__.b=1'], undefined, 'h')).toThrow(
      "--set a.__proto__.b: '__proto__' is not allowed as a field name",
    );
    expect(() => fieldsFromFlags(['a..b=1'], undefined, 'h')).toThrow('--set a..b: empty field name');
  });

  it('still sets ordinary and nested fields', () => {
    expect(fieldsFromFlags(['displayName=Acme', 'a.b=c'], ['n=5', 'a.d=[1]'], 'h')).toEqual({
      displayName: 'Acme',
      n: 5,
      a: { b: 'c', d: [1] },
    });
  });
});

describe('operator commands as typed, with a misspelt field', () => {
  it('refuse it by name, with the field it probably means, exit 3, before connecting to Temporal', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['brand', 'correct', 'acme', '--set', 'webSite=https://x.example', '--set', 'email=a@b.example'],
        /patch\.webSite: unknown field \(did you mean website\?\)/,
      ],
      [
        ['campaign', 'resubmit', 'acme-c', '--set', 'sample1=Hi', '--set', 'descripton=x'],
        /changes\.descripton: unknown field \(did you mean description\?\)/,
      ],
    ];
    for (const [argv, message] of cases) {
      // No client and no TEMPORAL_ADDRESS: reaching Temporal would fail differently.
      const run = await tcr(argv);
      expect(run.code, argv.join(' ')).toBe(3);
      expect(run.stderr, argv.join(' ')).toMatch(message);
    }
  });
});

describe('registry text printed to a terminal', () => {
  it('printable removes C0, C1, DEL and bidi controls but keeps newlines and tabs', () => {
    // What is left of an escape sequence is inert text.
    expect(printable(`a${ESC}[2Jb\u0007c\u009bd\u007fe\u202ef\tg\nh`)).toBe('a[2Jbcdef\tg\nh');
    expect(oneLine('line1\r\nline2\nline3')).toBe('line1 line2 line3');
  });

  const hostile = `${ESC}]0;owned${ESC}\\${ESC}[2J${ESC}[1A`;
  const status: BrandStatus = {
    workflowType: 'brand',
    reference: 'acme-1',
    account: 'CSP1',
    phase: 'needs_action' as BrandStatus['phase'],
    brandId: `B123${hostile}`,
    entityType: 'PRIVATE_PROFIT',
    identityStatus: `UNVERIFIED\nFake: line${hostile}`,
    optionalAttributes: {},
    vets: [],
    needsAction: [
      {
        key: 'k',
        action: `fix it${hostile}`,
        reason: `the registry said ${hostile}`,
        since: '2026-01-01T00:00:00Z',
        registryErrors: [{ code: 501, description: `bad field${hostile}`, fields: [`ein${ESC}[31m`] }],
      } as BrandStatus['needsAction'][number],
    ],
    alerts: [`alert${hostile}`],
    politicalCampaignsAffected: false,
    pendingOperations: [],
    runs: 1,
    audit: emptyAuditTrail(),
  };

  it('renderStatus and summarizeStatus carry no control character, and a value cannot add a line', () => {
    const text = renderStatus(status);
    expect(text).not.toContain(ESC);
    expect(text).toBe(printable(text));
    expect(text).toContain('B123]0;owned');
    expect(text).not.toMatch(/^Fake: line/m);
    expect(summarizeStatus(status)).not.toContain(ESC);
  });

  it('parked events, webhook subscriptions and account checks print registry text the same way', () => {
    const parked = renderParked('parked/brand/B1', {
      kind: 'brand',
      keyType: 'registryId',
      key: `B1${hostile}`,
      held: [
        {
          event: { eventType: `BRAND_UPDATE${hostile}\nFake: line`, brandId: `B1${hostile}` },
          receivedAt: '2026-01-01T00:00:00Z',
          deliveryId: 'abcdef0123456789',
        },
      ],
      forwarded: 0,
      expiresAt: '2026-02-01T00:00:00Z',
    });
    const subscription = subscriptionLine({
      account: 'acme',
      eventCategory: `BRAND${hostile}`,
      webhookEndpoint: `https://hooks.example/x${hostile}\nFake: line`,
      secretStored: true,
    });
    const report = reportLines([
      {
        account: 'acme',
        environment: 'production',
        baseUrl: 'https://registry.example',
        ok: false,
        checks: [
          { check: 'webhooks', status: 'problem', detail: `registry answered ${hostile}\nFake: line` },
        ],
      },
    ]);
    for (const line of [...parked, subscription, ...report]) {
      expect(line).not.toContain(ESC);
      expect(line).toBe(printable(line));
      expect(line).not.toContain('\n');
    }
    expect(parked.join('\n')).toContain('B1]0;owned');
    expect(subscription).toContain('(secret stored)');
    expect(report[1]).toContain('PROBLEM: registry answered');
  });
});
