/**
 * Every variable of `tcr codec-server` (the table in docs/operations.md) changes what the running
 * server does: each case starts the real command in-process with the variable set and observes the
 * effect over HTTP. A documented variable without a case fails the last test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { EncryptionCodec, Keyring } from '../../src/codec/index.js';
import { freePort, isAddressInUse, startOnProbedPorts } from '../../src/stack/ports.js';

const dir = mkdtempSync(join(tmpdir(), 'tcr-codec-vars-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const keyring = Keyring.generate('kvars');
const keysJson = JSON.stringify(keyring.toFile());
const keysFile = join(dir, 'keys.json');
writeFileSync(keysFile, keysJson, { mode: 0o600 });
const token = 'codec-vars-token-0123456789';
const value = { ein: '987654321' };

/** `tcr codec-server` in this process with `env` only; resolves once it printed its address. */
async function serve(
  env: Record<string, string>,
): Promise<{ url: string; line: string; stop(): Promise<void> }> {
  const { runCli } = await import('../../src/cli/run.js');
  const stop = new AbortController();
  const err: string[] = [];
  let announced: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    announced = resolve;
  });
  const running = runCli(['codec-server'], {
    env,
    signal: stop.signal,
    io: {
      out: () => {},
      err: (t) => {
        err.push(t);
        announced();
      },
    },
  });
  const code = await Promise.race([first.then(() => undefined), running]);
  if (code !== undefined) throw new Error(`codec-server exited ${code}: ${err.join('')}`);
  const line = err[0] ?? '';
  const url = /codec server on (\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`no address in: ${line}`);
  return {
    url,
    line,
    async stop() {
      stop.abort();
      await running;
    },
  };
}

const base = { TCR_PAYLOAD_KEYS_FILE: keysFile, TCR_CODEC_SERVER_TOKENS: token, TCR_CODEC_SERVER_PORT: '0' };

const asJson = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

/** POST /decode of a payload encrypted with this file's key, with `token`. */
async function decode(url: string, bearer = token, extra: RequestInit = {}): Promise<Response> {
  const [encrypted] = await new EncryptionCodec(keyring).encode([defaultPayloadConverter.toPayload(value)]);
  return fetch(`${url}/decode`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ payloads: [asJson(encrypted!)] }),
    ...extra,
  });
}

const cases: Record<string, () => Promise<void>> = {
  async TCR_PAYLOAD_KEYS_FILE() {
    const server = await serve(base);
    try {
      expect((await decode(server.url)).status).toBe(200);
    } finally {
      await server.stop();
    }
    // Another key file: the payload encrypted under kvars can no longer be decoded.
    const other = join(dir, 'other-keys.json');
    writeFileSync(other, JSON.stringify(Keyring.generate('kother').toFile()), { mode: 0o600 });
    const wrong = await serve({ ...base, TCR_PAYLOAD_KEYS_FILE: other });
    try {
      expect((await decode(wrong.url)).status).not.toBe(200);
      expect(wrong.line).toContain('current key kother');
    } finally {
      await wrong.stop();
    }
  },
  async TCR_PAYLOAD_KEYS() {
    const { TCR_PAYLOAD_KEYS_FILE: _, ...withoutFile } = base;
    const server = await serve({ ...withoutFile, TCR_PAYLOAD_KEYS: readFileSync(keysFile, 'utf8') });
    try {
      expect(server.line).toContain('current key kvars');
      expect((await decode(server.url)).status).toBe(200);
    } finally {
      await server.stop();
    }
  },
  async TCR_CODEC_SERVER_TOKENS() {
    const second = 'a-second-token-0123456789';
    const server = await serve({ ...base, TCR_CODEC_SERVER_TOKENS: `${token},${second}` });
    try {
      expect(server.line).toContain('2 token(s)');
      expect((await decode(server.url, second)).status).toBe(200);
      expect((await decode(server.url, 'not-a-listed-token-0123')).status).toBe(401);
    } finally {
      await server.stop();
    }
  },
  async TCR_CODEC_SERVER_TOKEN_FILE() {
    const file = join(dir, 'tokens');
    const fromFile = 'a-token-from-the-file-0123';
    writeFileSync(file, `${fromFile}\n`, { mode: 0o600 });
    const { TCR_CODEC_SERVER_TOKENS: _, ...withoutTokens } = base;
    const server = await serve({ ...withoutTokens, TCR_CODEC_SERVER_TOKEN_FILE: file });
    try {
      expect((await decode(server.url, fromFile)).status).toBe(200);
      expect((await decode(server.url, token)).status).toBe(401);
    } finally {
      await server.stop();
    }
  },
  async TCR_CODEC_SERVER_ALLOWED_ORIGINS() {
    const ui = 'https://temporal-ui.example.com';
    const server = await serve({ ...base, TCR_CODEC_SERVER_ALLOWED_ORIGINS: ui });
    try {
      const allowed = await decode(server.url, token, {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: ui },
      });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(ui);
      const other = await decode(server.url, token, {
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          origin: 'https://x.example',
        },
      });
      expect(other.status).toBe(403);
    } finally {
      await server.stop();
    }
  },
  async TCR_CODEC_SERVER_HOST() {
    // Any 127/8 address is loopback on Linux: the server listens where it is told.
    const server = await serve({ ...base, TCR_CODEC_SERVER_HOST: '127.0.0.2' });
    try {
      expect(new URL(server.url).hostname).toBe('127.0.0.2');
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  },
  async TCR_CODEC_SERVER_PORT() {
    // A number is needed here, so one is probed (and the start retried if it was taken meanwhile).
    let port = 0;
    const server = await startOnProbedPorts({
      probed: true,
      retryable: (error) => isAddressInUse(error) || /EADDRINUSE/.test(String(error)),
      start: async () => {
        port = await freePort();
        return serve({ ...base, TCR_CODEC_SERVER_PORT: String(port) });
      },
    });
    try {
      expect(Number(new URL(server.url).port)).toBe(port);
    } finally {
      await server.stop();
    }
  },
  async TCR_CODEC_SERVER_BODY_LIMIT() {
    const server = await serve({ ...base, TCR_CODEC_SERVER_BODY_LIMIT: '1024' });
    try {
      const big = await fetch(`${server.url}/decode`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ payloads: [], pad: 'x'.repeat(2048) }),
      });
      expect(big.status).toBe(413);
      expect((await decode(server.url)).status).toBe(200); // a small body still passes
    } finally {
      await server.stop();
    }
    // The default (4 MiB) takes the same 2 KB body past the limit check (400: not payloads).
    const roomy = await serve(base);
    try {
      const same = await fetch(`${roomy.url}/decode`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ payloads: [], pad: 'x'.repeat(2048) }),
      });
      expect(same.status).not.toBe(413);
    } finally {
      await roomy.stop();
    }
  },
};

describe('tcr codec-server: each variable changes the running server', () => {
  for (const [name, check] of Object.entries(cases)) it(name, check);

  it('every variable of the codec server rows in docs/operations.md has a case here', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `(TCR_(?:CODEC_SERVER_\w+|PAYLOAD_KEYS(?:_FILE)?))` \|/gm)].map(
      (m) => m[1]!,
    );
    expect(documented.length).toBeGreaterThanOrEqual(8);
    expect([...new Set(documented)].sort()).toEqual(Object.keys(cases).sort());
  });
});
