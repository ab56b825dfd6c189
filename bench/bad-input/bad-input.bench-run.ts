/**
 * Bad input drill: malformed orders through startBrandOrder / startCampaignOrder and through the
 * CLI's file validation (`tcr brand register FILE`, `tcr campaign create FILE`), and malformed or
 * forged webhooks through the ingress. Counts: rejected with an error naming the field, rejected
 * without naming it, started a workflow (visibility count; target 0), crashed anything (an error
 * other than the validation error, a 5xx, a CLI exit other than 3, the ingress unhealthy; target 0).
 * No worker runs: anything started would only be recorded. Needs `npm run build` for the CLI part.
 *   npx vitest run --config bench/vitest.config.ts bench/bad-input
 * Results: stdout and bench/bad-input/results.json.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { signEvent } from '../../src/ingress/signature.js';
import { startBrandOrder } from '../../src/orders/brand-client.js';
import { OrderValidationError } from '../../src/orders/brand-order.js';
import { CampaignOrderValidationError, startCampaignOrder } from '../../src/orders/campaign-orders.js';
import { projectRoot } from '../../src/toolchain/paths.js';
import { badOrderCorpus } from '../support/bad-input-corpus.js';
import { startBenchStack } from '../support/bench-stack.js';
import { writeResults } from '../support/results.js';

const run = promisify(execFile);

const names = (field: string, path: string) =>
  path !== '' && (path === field || path.startsWith(`${field}.`) || field.startsWith(`${path}.`));

it('malformed orders and forged webhooks: rejected, nothing started, nothing crashed', async () => {
  const stack = await startBenchStack({ workers: 'none', timeScale: 3600 });
  try {
    const { corpus, optionalAccepted } = badOrderCorpus();
    const api = {
      total: corpus.length,
      clear: 0,
      unclear: [] as string[],
      started: [] as string[],
      crashed: [] as string[],
    };
    const byCategory: Record<string, { total: number; clear: number }> = {};
    for (const [i, bad] of corpus.entries()) {
      const order = { ...bad.order };
      // A unique reference per case (unless the case is about the reference), so a start would show.
      if (bad.field !== 'reference' && typeof order.reference === 'string') order.reference = `bad-${i}`;
      const key = `${bad.kind} ${bad.category}`;
      const cat = byCategory[key] ?? { total: 0, clear: 0 };
      byCategory[key] = cat;
      cat.total++;
      try {
        if (bad.kind === 'brand') await startBrandOrder(stack.client, order);
        else await startCampaignOrder(stack.client, order);
        api.started.push(`${bad.kind}: ${bad.description}`);
      } catch (error) {
        if (error instanceof OrderValidationError || error instanceof CampaignOrderValidationError) {
          if (error.errors.some((e) => names(bad.field, e.path))) {
            api.clear++;
            cat.clear++;
          } else api.unclear.push(`${bad.kind}: ${bad.description} → ${error.message.slice(0, 160)}`);
        } else api.crashed.push(`${bad.kind}: ${bad.description} → ${String(error).slice(0, 160)}`);
      }
    }

    // The CLI's file validation: every "missing" and "wrong-type" case as a file.
    const cliCases = corpus.filter((c) => c.category === 'missing' || c.category === 'wrong-type');
    const cli = {
      total: cliCases.length,
      exit3NamingField: 0,
      exit3Unclear: [] as string[],
      other: [] as string[],
    };
    for (const [i, bad] of cliCases.entries()) {
      const file = join(stack.dataDir, `order-${i}.json`);
      writeFileSync(file, JSON.stringify(bad.order));
      const args = [
        join(projectRoot, 'dist/cli/main.js'),
        bad.kind,
        bad.kind === 'brand' ? 'register' : 'create',
        file,
        '--address',
        stack.temporalAddress,
      ];
      try {
        await run(process.execPath, args, { timeout: 20_000 });
        cli.other.push(`${bad.description}: exit 0`);
      } catch (error) {
        const e = error as { code?: number; stderr?: string; stdout?: string };
        const text = `${e.stderr ?? ''}${e.stdout ?? ''}`;
        if (e.code === 3 && text.includes(bad.field)) cli.exit3NamingField++;
        else if (e.code === 3) cli.exit3Unclear.push(`${bad.description}: ${text.slice(0, 160)}`);
        else cli.other.push(`${bad.description}: exit ${e.code}: ${text.slice(0, 160)}`);
      }
    }

    // Webhooks: forged, malformed, oversized.
    const url = stack.ingress.endpoint;
    const good = {
      eventType: 'BRAND_IDENTITY_STATUS_UPDATE',
      cspId: 'CSPLOCAL',
      brandId: 'BBADIN1',
      brandReferenceId: 'bad-webhook-ref',
      brandIdentityStatus: 'VERIFIED',
    };
    const sig = (body: unknown, secret = stack.webhookSecret, webhookUrl = stack.webhookUrl) =>
      signEvent(secret, webhookUrl, body);
    const post = async (body: string, headers: Record<string, string>) => {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      await r.arrayBuffer();
      return r.status;
    };
    const H = 'x-registry-signature-256';
    const webhookCases: { name: string; send: () => Promise<number>; expect: (s: number) => boolean }[] = [
      { name: 'no signature', send: () => post(JSON.stringify(good), {}), expect: (s) => s === 401 },
      {
        name: 'signature with a wrong secret',
        send: () => post(JSON.stringify(good), { [H]: sig(good, 'wrong-secret-wrong-secret') }),
        expect: (s) => s === 401,
      },
      {
        name: 'signature for another URL',
        send: () =>
          post(JSON.stringify(good), { [H]: sig(good, stack.webhookSecret, 'https://evil.example/hook') }),
        expect: (s) => s === 401,
      },
      {
        name: 'body changed after signing',
        send: () => post(JSON.stringify({ ...good, brandIdentityStatus: 'UNVERIFIED' }), { [H]: sig(good) }),
        expect: (s) => s === 401,
      },
      {
        name: 'garbage signature',
        send: () => post(JSON.stringify(good), { [H]: '!!!not-base64!!!' }),
        expect: (s) => s === 401,
      },
      {
        name: 'empty signature',
        send: () => post(JSON.stringify(good), { [H]: '' }),
        expect: (s) => s === 401,
      },
      {
        name: 'SHA-1 header only',
        send: () => post(JSON.stringify(good), { 'x-registry-signature': 'abc' }),
        expect: (s) => s === 401,
      },
      { name: 'not JSON', send: () => post('{not json', { [H]: 'abc' }), expect: (s) => s >= 400 && s < 500 },
      { name: 'empty body', send: () => post('', { [H]: 'abc' }), expect: (s) => s >= 400 && s < 500 },
      {
        name: 'JSON array, signed',
        send: () => post('[1,2]', { [H]: sig([1, 2]) }),
        expect: (s) => (s >= 400 && s < 500) || s === 200 || s === 202,
      },
      {
        name: 'signed, no eventType',
        send: () => post(JSON.stringify({ cspId: 'CSPLOCAL' }), { [H]: sig({ cspId: 'CSPLOCAL' }) }),
        expect: (s) => s < 500,
      },
      {
        name: 'signed, eventType a number',
        send: () => post(JSON.stringify({ eventType: 7 }), { [H]: sig({ eventType: 7 }) }),
        expect: (s) => s < 500,
      },
      {
        name: '2 MB body',
        send: () => post(JSON.stringify({ ...good, description: 'x'.repeat(2_000_000) }), { [H]: 'abc' }),
        expect: (s) => s === 413 || s === 401 || s === 400,
      },
      {
        name: 'text/plain content type',
        send: async () => {
          const r = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'text/plain', [H]: sig(good) },
            body: JSON.stringify(good),
          });
          await r.arrayBuffer();
          return r.status;
        },
        expect: (s) => s < 500,
      },
    ];
    const hooks = { total: webhookCases.length, asExpected: 0, unexpected: [] as string[], fiveXx: 0 };
    for (const c of webhookCases) {
      const status = await c.send().catch(() => 0);
      if (status === 0 || status >= 500) hooks.fiveXx++;
      if (c.expect(status)) hooks.asExpected++;
      else hooks.unexpected.push(`${c.name}: ${status}`);
    }
    const health = await fetch(`${stack.ingress.internalUrl ?? stack.ingress.url}/healthz`)
      .then((r) => r.status)
      .catch(() => 0);

    await new Promise((r) => setTimeout(r, 2_000)); // visibility catches up
    const entity = await stack.client.workflow.count(
      'WorkflowType = "brandWorkflow" OR WorkflowType = "campaignWorkflow"',
    );
    const parked = await stack.client.workflow.count('WorkflowType = "parkedEvents"');
    const results = {
      when: new Date().toISOString(),
      orders: { ...api, byCategory, optionalFieldsAccepted: optionalAccepted },
      cli,
      webhooks: { ...hooks, ingressHealthAfter: health },
      workflowsStarted: { entity: entity.count, parkedEvents: parked.count },
    };
    console.log(JSON.stringify(results, null, 2));
    writeResults(new URL('./results.json', import.meta.url), results);
    expect(api.crashed).toEqual([]);
    expect(entity.count).toBe(api.started.length);
    expect(hooks.fiveXx).toBe(0);
    expect(health).toBe(200);
  } finally {
    await stack.stop();
  }
});
