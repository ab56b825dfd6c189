/**
 * Webhooks kept to their account (issue 35, item 2): each secret belongs to one account, and the
 * ingress delivers an event only to the workflows of the account whose secret verified it, through
 * the real router over a stand-in Temporal client (which workflows exist, whose account they are,
 * what was signalled or parked). A QA secret never reaches a production workflow, by reference or by
 * a legacy id; an event whose cspId is another account's is acknowledged and not delivered; an
 * unlabelled secret with two accounts configured is a configuration error naming its line.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { AccountKey } from '../../src/contracts/search-attributes.js';
import { buildIngressApp } from '../../src/ingress/app.js';
import { IngressConfigError, parseIngressConfig } from '../../src/ingress/config.js';
import { IngressMetrics } from '../../src/ingress/metrics.js';
import { signEvent } from '../../src/ingress/signature.js';
import { tempDir } from '../support/temp-dir.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const QA_SECRET = 'qa-secret-0123456789abcdefghijklmnopqr';
const PROD_SECRET = 'prod-secret-0123456789abcdefghijklmnop';

function secretsFile(text: string): string {
  const file = join(tempDir('tcr-secrets-'), 'secrets');
  writeFileSync(file, text);
  chmodSync(file, 0o600);
  return file;
}

const labelledFile = () =>
  secretsFile(
    `# account=qa category=BRAND\n${QA_SECRET}\n# account=production category=BRAND\n${PROD_SECRET}\n`,
  );

/** A Temporal client stand-in: `existing` maps workflow ids to their TcrAccount. */
function fakeTemporal(existing: Record<string, string>) {
  const signalled: string[] = [];
  const parked: string[] = [];
  const notFound = (id: string) => new WorkflowNotFoundError(`workflow not found: ${id}`, id, undefined);
  const client = {
    workflow: {
      getHandle: (id: string) => ({
        workflowId: id,
        signal: async () => {
          if (!(id in existing)) throw notFound(id);
          signalled.push(id);
        },
        describe: async () => {
          if (!(id in existing)) throw notFound(id);
          return {
            status: { name: 'RUNNING' },
            typedSearchAttributes: new TypedSearchAttributes([{ key: AccountKey, value: existing[id]! }]),
          };
        },
      }),
      list: async function* () {},
      signalWithStart: async (_type: string, options: { workflowId: string }) => {
        parked.push(options.workflowId);
        return {};
      },
    },
    withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(),
  } as unknown as Client;
  return { client, signalled, parked };
}

function ingress(env: Record<string, string>, existing: Record<string, string>) {
  const config = parseIngressConfig({
    TCR_WEBHOOK_URL: WEBHOOK_URL,
    TCR_WEBHOOK_SECRETS_FILE: labelledFile(),
    TCR_INGRESS_INTERNAL_LISTEN: 'off',
    ...env,
  });
  const temporal = fakeTemporal(existing);
  const metrics = new IngressMetrics();
  const { app } = buildIngressApp({
    config,
    client: temporal.client,
    logger: pino({ level: 'silent' }),
    metrics,
  });
  const post = async (secret: string, event: Record<string, unknown>) => {
    const response = await app.inject({
      method: 'POST',
      url: config.path,
      headers: {
        'content-type': 'application/json',
        'x-registry-signature-256': signEvent(secret, WEBHOOK_URL, event),
      },
      payload: JSON.stringify(event),
    });
    return { status: response.statusCode, json: response.json() as Record<string, unknown> };
  };
  return { ...temporal, metrics, post };
}

describe('webhooks kept to their account', () => {
  it("delivers an event signed with the QA secret to QA's workflow only, never production's", async () => {
    const { post, signalled, parked } = ingress(
      {},
      { 'brand/production/R1': 'production', 'brand/qa/R1': 'qa', 'brand/R2': 'production' },
    );
    const toQa = await post(QA_SECRET, { eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandReferenceId: 'R1' });
    expect(toQa).toMatchObject({ status: 200, json: { outcome: 'signalled', workflowId: 'brand/qa/R1' } });
    expect(signalled).toEqual(['brand/qa/R1']);

    // R2 is production's only (a workflow an earlier release opened under the legacy id): a QA-signed
    // event for it is parked under QA, never handed to production's workflow.
    const legacy = await post(QA_SECRET, {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      brandReferenceId: 'R2',
    });
    expect(legacy).toMatchObject({ status: 200, json: { outcome: 'parked' } });
    expect(signalled).toEqual(['brand/qa/R1']);
    expect(parked).toEqual(['parked/qa/brand-ref/R2']);

    // Signed with production's secret, it reaches production's legacy-id workflow (the migration path).
    const prod = await post(PROD_SECRET, {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      brandReferenceId: 'R2',
    });
    expect(prod).toMatchObject({ status: 200, json: { outcome: 'signalled', workflowId: 'brand/R2' } });

    // Registry ids park per account too.
    await post(QA_SECRET, { eventType: 'BRAND_IDENTITY_STATUS_UPDATE', brandId: 'BQA0001' });
    expect(parked).toEqual(['parked/qa/brand-ref/R2', 'parked/qa/brand/BQA0001']);
  });

  it("acknowledges, records and never delivers an event whose cspId is not the verifying account's", async () => {
    const { post, signalled, parked, metrics } = ingress(
      { TCR_INGRESS_ACCOUNTS: 'qa=CSPQA,production=CSPPROD' },
      { 'brand/qa/R1': 'qa', 'brand/production/R1': 'production' },
    );
    const crossed = await post(QA_SECRET, {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      brandReferenceId: 'R1',
      cspId: 'CSPPROD',
    });
    expect(crossed).toMatchObject({ status: 200, json: { outcome: 'ignored' } });
    expect(signalled).toEqual([]);
    expect(parked).toEqual([]);
    expect(metrics.snapshot().rejected).toMatchObject({ csp_mismatch: 1 });

    const own = await post(QA_SECRET, {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      brandReferenceId: 'R1',
      cspId: 'CSPQA',
    });
    expect(own).toMatchObject({ status: 200, json: { outcome: 'signalled', workflowId: 'brand/qa/R1' } });
  });

  it('refuses an unlabelled secret when more than one account is configured, naming the line', () => {
    const file = secretsFile(`# account=qa category=BRAND\n${QA_SECRET}\n${PROD_SECRET}\n`);
    let error: unknown;
    try {
      parseIngressConfig({
        TCR_WEBHOOK_URL: WEBHOOK_URL,
        TCR_WEBHOOK_SECRETS_FILE: file,
        TCR_INGRESS_ACCOUNTS: 'qa,production',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IngressConfigError);
    expect((error as Error).message).toMatch(
      /line 3.*unlabelled secret is valid only with exactly one account/,
    );
    expect((error as Error).message).not.toContain(PROD_SECRET);

    // With one account, an unlabelled secret is that account's.
    const one = parseIngressConfig({
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: PROD_SECRET,
      TCR_INGRESS_ACCOUNTS: 'production=CSPPROD',
    });
    expect(one.accountSecrets).toEqual([{ account: 'production', secret: PROD_SECRET }]);
    expect(one.accounts).toEqual([{ name: 'production', cspId: 'CSPPROD' }]);
    // Without any account named, it is refused (the ingress would not know whose workflows it reaches).
    expect(() =>
      parseIngressConfig({ TCR_WEBHOOK_URL: WEBHOOK_URL, TCR_WEBHOOK_SECRETS: PROD_SECRET }),
    ).toThrow(/TCR_WEBHOOK_SECRETS secret 1.*exactly one account/);
  });
});
