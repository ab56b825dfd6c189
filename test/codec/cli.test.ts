import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import {
  EncryptionCodec,
  Keyring,
  readKeyFile,
  readPublicKeyFile,
  SealingCodec,
  writeKeyFile,
} from '../../src/codec/index.js';
import { tcr, tempDir } from '../cli/support.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tcr payload-keys', () => {
  it('creates a key file, adds and promotes a key (two-step rotation), rotates, and prints ids only', async () => {
    const file = join(dir, 'keys.json');
    const env = { TCR_PAYLOAD_KEYS_FILE: file };
    expect((await tcr(['payload-keys', 'init', '--id', 'k1'], { env })).code).toBe(0);
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    const k1 = readKeyFile(file).key('k1')!.toString('base64');
    const [old] = await new EncryptionCodec(readKeyFile(file)).encode([
      defaultPayloadConverter.toPayload('x'),
    ]);

    const added = await tcr(['payload-keys', 'add', '--id', 'k2', '--json'], { env });
    expect(added.code).toBe(0);
    const addedJson = JSON.parse(added.stdout);
    expect(addedJson).toMatchObject({ current: 'k1', ids: ['k1', 'k2'] });
    // init also made an ingress key (its public half is the ingress's: tcr payload-keys public).
    expect(addedJson.ingress.ids).toEqual([addedJson.ingress.current]);
    const promoted = await tcr(['payload-keys', 'promote', '--id', 'k2', '--file', file]);
    expect(promoted.stdout).toBe(`k1\nk2  (current)\n${addedJson.ingress.current}  (ingress key, current)`);
    const rotated = await tcr(['payload-keys', 'rotate', '--json'], { env });
    const ids = JSON.parse(rotated.stdout);
    expect(ids.ids).toHaveLength(3);
    expect(ids.current).toMatch(/^k\d{8}-[0-9a-f]{6}$/);
    for (const run of [added, promoted, rotated]) expect(run.stdout + run.stderr).not.toContain(k1);
    // The old key is still there: what it encrypted still decodes.
    const ring = readKeyFile(file);
    expect(ring.key('k1')!.toString('base64')).toBe(k1);
    const [decoded] = await new EncryptionCodec(ring).decode([old!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toBe('x');
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
  });

  it('refuses to overwrite a key file, to promote an unknown key, or to run without a file', async () => {
    const file = join(dir, 'keys2.json');
    expect((await tcr(['payload-keys', 'init', '--file', file])).code).toBe(0);
    const before = readFileSync(file, 'utf8');
    const again = await tcr(['payload-keys', 'init', '--file', file]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('exists');
    expect(readFileSync(file, 'utf8')).toBe(before);
    const unknown = await tcr(['payload-keys', 'promote', '--file', file, '--id', 'nope']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain("key 'nope' is not in the keyring");
    const none = await tcr(['payload-keys', 'list']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--file (or TCR_PAYLOAD_KEYS_FILE) is required');
  });
});

describe('tcr payload-keys ingress-key and public', () => {
  it("writes the ingress's public key file (0600, no private key), newest current, from an older key file too", async () => {
    const file = join(dir, 'older-keys.json');
    writeKeyFile(file, Keyring.generate('k1')); // a key file from before the ingress keys
    const out = join(dir, 'ingress-public.json');
    const none = await tcr(['payload-keys', 'public', '--file', file, '--out', out]);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('tcr payload-keys ingress-key');
    expect((await tcr(['payload-keys', 'ingress-key', '--file', file, '--id', 's1'])).code).toBe(0);
    expect((await tcr(['payload-keys', 'ingress-key', '--file', file, '--id', 's2'])).code).toBe(0);
    const written = await tcr(['payload-keys', 'public', '--file', file, '--out', out, '--json']);
    expect(written.code, written.stderr).toBe(0);
    expect(JSON.parse(written.stdout)).toEqual({ current: 's2', ids: ['s1', 's2'] });
    expect((statSync(out).mode & 0o777).toString(8)).toBe('600');
    const ring = readKeyFile(file);
    const text = readFileSync(out, 'utf8');
    for (const secret of [
      ...Object.values(ring.toFile().sealing!.keys),
      ...Object.values(ring.toFile().keys),
    ])
      expect(text).not.toContain(secret);
    const [sealed] = await new SealingCodec(readPublicKeyFile(out)).encode([
      defaultPayloadConverter.toPayload('y'),
    ]);
    expect(defaultPayloadConverter.fromPayload((await new EncryptionCodec(ring).decode([sealed!]))[0]!)).toBe(
      'y',
    );
  });
});

describe('tcr codec-server', () => {
  it('serves until stopped, answering health checks and refusing calls without the token', async () => {
    const file = join(dir, 'server-keys.json');
    await tcr(['payload-keys', 'init', '--file', file]);
    const stop = new AbortController();
    const err: string[] = [];
    // The first line on stderr (the address it listens on) is waited for, not polled for a while.
    let firstLine: () => void = () => {};
    const announced = new Promise<void>((resolve) => {
      firstLine = resolve;
    });
    const { runCli } = await import('../../src/cli/run.js');
    const running = runCli(['codec-server', '--port', '0'], {
      env: { TCR_PAYLOAD_KEYS_FILE: file, TCR_CODEC_SERVER_TOKENS: 'a-token-of-enough-length' },
      signal: stop.signal,
      io: {
        out: () => {},
        err: (t) => {
          err.push(t);
          firstLine();
        },
      },
    });
    await Promise.race([announced, running]);
    const url = /codec server on (\S+)/.exec(err[0] ?? '')?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(err[0]).not.toContain('a-token-of-enough-length');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/decode`, { method: 'POST', body: '{"payloads":[]}' })).status).toBe(401);
    const ok = await fetch(`${url}/decode`, {
      method: 'POST',
      headers: { authorization: 'Bearer a-token-of-enough-length', 'content-type': 'application/json' },
      body: '{"payloads":[]}',
    });
    expect(await ok.json()).toEqual({ payloads: [] });
    stop.abort();
    expect(await running).toBe(0);
  });

  it('refuses to start without a token (usage error naming the variable)', async () => {
    const file = join(dir, 'keys3.json');
    await tcr(['payload-keys', 'init', '--file', file]);
    const run = await tcr(['codec-server'], { env: { TCR_PAYLOAD_KEYS_FILE: file } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('TCR_CODEC_SERVER_TOKENS');
  });
});
