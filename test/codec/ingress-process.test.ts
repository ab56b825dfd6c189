/**
 * `tcr ingress` as its own process (dist/, built by `npm test` first) with the public ingress keys
 * only (TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE): what it hands to Temporal is sealed to them (envelope
 * 3), the workers' key file opens it, and neither the history nor its log holds the values a registry
 * event carried. Given the workers' key file, it refuses to start (issue 35, item 3).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendSignedEvent } from '../../bench/support/webhooks.js';
import {
  EncryptionCodec,
  Keyring,
  PublicKeys,
  writeKeyFile,
  writePublicKeyFile,
} from '../../src/codec/index.js';
import { startIngressProcess } from '../support/ingress-process.js';
import { devServerEnv } from '../support/temporal-env.js';
import { historyLeaks, locatedHistoryPayloads, payloadEncoding } from './history-leaks.js';

const WEBHOOK_URL = 'https://csp.example/webhooks/registry';
const SECRET = 'codec-ingress-secret-0123456789abcdefghij';
const EMAIL = 'compliance.lead@northwind.example';
const EIN = '731104556';
const dir = mkdtempSync(join(tmpdir(), 'tcr-ingress-codec-'));
const keysFile = join(dir, 'payload-keys.json');
const publicFile = join(dir, 'ingress-public-keys.json');
const keyring = Keyring.generate('ingress-k1').withNewSealingKey('ingress-s1');
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  chmodSync(dir, 0o700);
  writeKeyFile(keysFile, keyring);
  writePublicKeyFile(publicFile, PublicKeys.of(keyring));
  env = await devServerEnv();
}, 180_000);
afterAll(async () => {
  await env?.teardown();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

it("refuses to start with the workers' key file", async () => {
  await expect(
    startIngressProcess({
      env: {
        TCR_WEBHOOK_URL: WEBHOOK_URL,
        TCR_WEBHOOK_SECRETS: SECRET,
        TEMPORAL_ADDRESS: env.address,
        TCR_INGRESS_ACCOUNTS: 'acme',
        TCR_PAYLOAD_ENCRYPTION: 'required',
        TCR_PAYLOAD_KEYS_FILE: keysFile,
      },
    }),
  ).rejects.toThrow(/TCR_PAYLOAD_KEYS_FILE: set for the ingress/);
}, 60_000);

it('seals what it hands to Temporal with the public keys it is given, and logs none of the event', async () => {
  const { child, url, stdout } = await startIngressProcess({
    captureStdout: true,
    env: {
      TCR_WEBHOOK_URL: WEBHOOK_URL,
      TCR_WEBHOOK_SECRETS: SECRET,
      TEMPORAL_ADDRESS: env.address,
      // The secret's account (workflow ids carry it).
      TCR_INGRESS_ACCOUNTS: 'acme',
      TCR_INGRESS_LOG_LEVEL: 'debug',
      TCR_PAYLOAD_ENCRYPTION: 'required',
      TCR_INGRESS_PAYLOAD_PUBLIC_KEYS_FILE: publicFile,
    },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    // An event for a reference no workflow owns yet: the ingress parks it (signalWithStart).
    const event = {
      eventType: 'BRAND_CONTACT_VERIFIED',
      cspId: 'CSPLOCAL',
      brandReferenceId: 'northwind-codec',
      description: `Business contact ${EMAIL} verified for EIN ${EIN}`,
    };
    const response = await sendSignedEvent(
      `${url}/webhooks/registry`,
      { secret: SECRET, webhookUrl: WEBHOOK_URL },
      event,
    );
    expect(response.status).toBe(200);
    const ack = (await response.json()) as { outcome: string; workflowId: string };
    expect(ack.outcome).toBe('parked');

    const raw = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
    const history = await raw.workflow.getHandle(ack.workflowId).fetchHistory();
    expect(historyLeaks(history, [EMAIL, EIN])).toEqual([]);
    const located = locatedHistoryPayloads(history);
    expect(located.length).toBeGreaterThan(0);
    expect(located.filter((p) => payloadEncoding(p.payload) !== 'binary/encrypted').map((p) => p.at)).toEqual(
      [],
    );
    // Sealed to the ingress key and bound to the target workflow (envelope 5): only the workers' key
    // file opens it, and only for that workflow.
    for (const { payload } of located) {
      expect(Buffer.from(payload.metadata!['encryption-envelope']!).toString()).toBe('5');
      expect(Buffer.from(payload.metadata!['encryption-workflow-id']!).toString()).toBe(ack.workflowId);
    }
    const namespace = env.namespace ?? 'default';
    await expect(
      new EncryptionCodec(keyring).decode(
        located.map((p) => p.payload),
        { type: 'workflow', namespace, workflowId: `${ack.workflowId}-elsewhere` },
      ),
    ).rejects.toThrow(/bound to workflow/);
    const decoded = await new EncryptionCodec(keyring).decode(
      located.map((p) => p.payload),
      { type: 'workflow', namespace, workflowId: ack.workflowId },
    );
    const values = decoded.map((p) => JSON.stringify(defaultPayloadConverter.fromPayload(p)));
    expect(values.some((v) => v.includes(EMAIL) && v.includes(EIN))).toBe(true);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout()).toContain(ack.workflowId);
    expect(stdout()).not.toContain(EMAIL);
    expect(stdout()).not.toContain(EIN);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 120_000);
