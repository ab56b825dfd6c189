/**
 * The identity `tcr` connects with (issue 35, item 3): Temporal records it in the history of each
 * signal and update, beside the self-declared approvedBy. It names the OS user and host, and the
 * mTLS client certificate's subject when there is one.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callerIdentity } from '../../src/cli/caller-identity.js';
import { CliContext } from '../../src/cli/context.js';
import { tempDir } from '../support/temp-dir.js';
import { timeSkippingEnv } from '../support/temporal-env.js';

describe('callerIdentity', () => {
  it('names the OS user and host', () => {
    expect(callerIdentity({}, { user: 'alice', host: 'ops-1' })).toBe('tcr os-user=alice host=ops-1');
    expect(callerIdentity({})).toMatch(/^tcr os-user=\S+ host=\S+$/);
  });

  it("adds the mTLS client certificate's subject, or says an API key authenticates", () => {
    const dir = tempDir('tcr-caller-');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'].concat(
        ['-subj', '/O=acme/CN=alice-ops', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')],
      ),
      { stdio: 'pipe' },
    );
    const crt = readFileSync(join(dir, 'c.pem'));
    const identity = callerIdentity(
      { tls: { clientCertPair: { crt, key: readFileSync(join(dir, 'k.pem')) } } },
      { user: 'alice', host: 'ops-1' },
    );
    expect(identity).toBe('tcr os-user=alice host=ops-1 cert="O=acme, CN=alice-ops"');
    expect(callerIdentity({ apiKey: 'k' }, { user: 'a', host: 'h' })).toBe(
      'tcr os-user=a host=h auth=api-key',
    );
  });
});

describe("tcr's client identity in a workflow's history", () => {
  it('is recorded with the signal it sends, beside what the signal declares', async () => {
    const env = await timeSkippingEnv();
    const dir = tempDir('tcr-caller-home-');
    const context = new CliContext({
      env: { TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default', HOME: dir, TCR_DATA_DIR: dir },
    });
    try {
      // No worker: the workflow only has to exist for the signal to be recorded.
      const handle = await env.client.workflow.start('identityProbe', {
        taskQueue: 'nobody-polls',
        workflowId: 'identity-probe',
      });
      const client = await context.client({});
      await client.workflow.getHandle(handle.workflowId).signal('probe');
      const history = await handle.fetchHistory();
      const signalled = history.events?.find((e) => e.workflowExecutionSignaledEventAttributes);
      expect(signalled?.workflowExecutionSignaledEventAttributes?.identity).toMatch(
        /^tcr os-user=\S+ host=\S+$/,
      );
    } finally {
      await context.close();
      await env.teardown();
    }
  });
});
