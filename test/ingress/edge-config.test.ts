import { describe, expect, it } from 'vitest';
import { loggableUrl } from '../../src/ingress/app.js';
import { parseIngressConfig } from '../../src/ingress/config.js';
import { isLoopbackHost } from '../../src/ingress/source-addresses.js';
import { openAllowListWarning } from '../../src/ingress/warnings.js';
import { ingressConfigProblem } from './ingress-test-config.js';

// The edge settings of the ingress configuration: limits, the internal listener, and the start-up
// refusals of a webhook URL that cannot work.
const SECRET = 'edge-config-secret-0123456789abcdefgh';
const base = {
  TCR_WEBHOOK_URL: 'https://csp.example/webhooks/registry',
  TCR_WEBHOOK_SECRETS: SECRET,
  TCR_INGRESS_ACCOUNTS: 'acme',
};

const problem = ingressConfigProblem;

describe('ingress edge configuration', () => {
  it('refuses an inline secret shorter than 32 bytes off loopback, naming its position, not its value', () => {
    const message = problem({ ...base, TCR_WEBHOOK_SECRETS: `${SECRET},short-secret-value` });
    expect(message).toContain('TCR_WEBHOOK_SECRETS');
    expect(message).toContain('secret 2 of 2 is shorter than 32 bytes');
    expect(message).toContain('TCR_WEBHOOK_SECRETS_FILE');
    expect(message).not.toContain('short-secret-value');
    // A secret with a comma is two short halves: refused, not silently split into two secrets.
    expect(problem({ ...base, TCR_WEBHOOK_SECRETS: 'first-half-of-a-secret,second-half-of-it' })).toContain(
      'secret 1 of 2 is shorter',
    );
    // Local stacks and tests (a loopback webhook URL) may use short ones.
    expect(
      parseIngressConfig({
        TCR_WEBHOOK_URL: 'http://127.0.0.1:8470/webhooks/registry',
        TCR_WEBHOOK_SECRETS: 'x',
        TCR_INGRESS_ACCOUNTS: 'acme',
      }).secrets,
    ).toEqual(['x']);
  });

  it('defaults: a 64 KiB body, request and idle timeouts, connection caps, internal listener on loopback', () => {
    expect(parseIngressConfig(base)).toMatchObject({
      bodyLimit: 64 * 1024,
      requestTimeoutMs: 10_000,
      idleTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxRequestsPerSocket: 1_000,
      maxConnections: 1_024,
      maxConnectionsPerAddress: 64,
      internal: { mode: 'listener', host: '127.0.0.1', port: 8471 },
      handoffFailure: 'close',
    });
  });

  it('reads the internal listener as HOST:PORT, [v6]:PORT, public or off', () => {
    const internal = (value: string) =>
      parseIngressConfig({ ...base, TCR_INGRESS_INTERNAL_LISTEN: value }).internal;
    expect(internal('0.0.0.0:9000')).toEqual({ mode: 'listener', host: '0.0.0.0', port: 9000 });
    expect(internal('[::1]:0')).toEqual({ mode: 'listener', host: '::1', port: 0 });
    expect(internal('public')).toEqual({ mode: 'public' });
    expect(internal('off')).toEqual({ mode: 'off' });
    for (const bad of ['8471', 'localhost', '127.0.0.1:99999', '::1:8471', 'on']) {
      expect(problem({ ...base, TCR_INGRESS_INTERNAL_LISTEN: bad }), bad).toContain(
        'TCR_INGRESS_INTERNAL_LISTEN',
      );
    }
  });

  it('refuses a webhook URL whose path is not the listen path', () => {
    const message = problem({ ...base, TCR_WEBHOOK_URL: 'https://csp.example/webhooks/registr' });
    expect(message).toContain('TCR_WEBHOOK_URL');
    expect(message).toContain('"/webhooks/registr"');
    expect(message).toContain('TCR_INGRESS_PATH "/webhooks/registry"');
    expect(problem({ ...base, TCR_INGRESS_PATH: '/hooks' })).toContain('TCR_WEBHOOK_URL');
    expect(
      parseIngressConfig({
        ...base,
        TCR_WEBHOOK_URL: 'https://csp.example/hooks',
        TCR_INGRESS_PATH: '/hooks',
      }).path,
    ).toBe('/hooks');
  });

  it('refuses plain http outside loopback, and accepts it on loopback', () => {
    expect(problem({ ...base, TCR_WEBHOOK_URL: 'http://csp.example/webhooks/registry' })).toMatch(
      /TCR_WEBHOOK_URL must be https/,
    );
    expect(problem({ ...base, TCR_WEBHOOK_URL: 'ftp://127.0.0.1/webhooks/registry' })).toContain(
      'must be https',
    );
    for (const host of ['127.0.0.1:8470', 'localhost:8470', '[::1]:8470', '127.9.9.9']) {
      const url = `http://${host}/webhooks/registry`;
      expect(parseIngressConfig({ ...base, TCR_WEBHOOK_URL: url }).webhookUrl).toBe(url);
    }
  });

  it('refuses an idle timeout that would cut a connection waiting for its hand-off', () => {
    expect(
      problem({ ...base, TCR_INGRESS_IDLE_TIMEOUT_MS: '5000', TCR_INGRESS_HANDOFF_TIMEOUT_MS: '5000' }),
    ).toContain('TCR_INGRESS_IDLE_TIMEOUT_MS');
  });

  it('refuses a non-numeric or zero limit, naming it', () => {
    for (const variable of [
      'TCR_INGRESS_REQUEST_TIMEOUT_MS',
      'TCR_INGRESS_MAX_CONNECTIONS',
      'TCR_INGRESS_MAX_CONNECTIONS_PER_ADDRESS',
      'TCR_INGRESS_KEEP_ALIVE_TIMEOUT_MS',
    ]) {
      expect(problem({ ...base, [variable]: '0' })).toContain(variable);
      expect(problem({ ...base, [variable]: 'lots' })).toContain(variable);
    }
    expect(problem({ ...base, TCR_INGRESS_HANDOFF_FAILURE: 'drop' })).toContain(
      'TCR_INGRESS_HANDOFF_FAILURE',
    );
  });

  it('logs the webhook URL without its query or user info', () => {
    expect(loggableUrl('https://user:pw@csp.example/webhooks/registry?token=abc')).toBe(
      'https://csp.example/webhooks/registry?…',
    );
    expect(loggableUrl('https://csp.example/webhooks/registry')).toBe(
      'https://csp.example/webhooks/registry',
    );
  });

  it('warns when the allow-list is off and the ingress listens beyond loopback', () => {
    expect(openAllowListWarning({ allow: [], host: '0.0.0.0' })).toMatch(/TCR_INGRESS_ALLOW is empty/);
    expect(openAllowListWarning({ allow: [], host: '::' })).toMatch(/anyone may POST/);
    expect(openAllowListWarning({ allow: ['192.0.2.0/24'], host: '0.0.0.0' })).toBeUndefined();
    expect(openAllowListWarning({ allow: [], host: '127.0.0.1' })).toBeUndefined();
    expect(openAllowListWarning({ allow: [], host: '::1' })).toBeUndefined();
  });

  it('tells loopback hosts from others', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'csp.example', '128.0.0.1', 'localhost.example']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});
