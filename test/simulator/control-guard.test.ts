import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { controlApiWarning, parseSimulatorArgs } from '../../src/simulator/cli.js';
import { guardControlRequest } from '../../src/simulator/control.js';
import { SimulatorControl, SimulatorControlError } from '../../src/simulator/control-client.js';
import { MAX_FAULTS, MAX_PATH_PATTERN_LENGTH } from '../../src/simulator/faults.js';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { tempDir } from '../support/temp-dir.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = await startSimulator({ rateLimits: false, ...options });
  cleanups.push(() => sim.close());
  return sim;
}

/** A raw request (node:http, so Host and Origin are whatever the test says). */
function raw(
  sim: RunningSimulator,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: { code: number; description: string; fields: string[] }[] }> {
  const url = new URL(`${sim.url}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path: url.pathname, headers, setHost: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const local = (sim: RunningSimulator) => new URL(sim.url).host;
const advanceBody = JSON.stringify({ seconds: 86_400 });
const json = (body: string) => ({
  'content-type': 'application/json',
  'content-length': String(Buffer.byteLength(body)),
});

describe('control API guard (no token)', () => {
  test('a DNS-rebinding Host is refused before the request acts; loopback names are accepted', async () => {
    const sim = await start();
    const control = new SimulatorControl(sim.url);
    const before = await control.now();
    const rebound = await raw(
      sim,
      'POST',
      '/control/clock/advance',
      { host: 'attacker.example:8480', ...json(advanceBody) },
      advanceBody,
    );
    expect(rebound.status).toBe(403);
    expect(rebound.body[0]!.description).toMatch(/Host "attacker\.example" is not a loopback address/);
    const reset = await raw(sim, 'POST', '/control/reset', { host: 'attacker.example' });
    expect(reset.status).toBe(403);
    // Not moved by a day (it runs at real time meanwhile).
    expect((await control.now()).getTime() - before.getTime()).toBeLessThan(86_400_000);
    for (const host of [local(sim), `localhost:${new URL(sim.url).port}`, '[::1]:1', 'app.localhost']) {
      expect((await raw(sim, 'GET', '/control/clock', { host })).status, host).toBe(200);
    }
  });

  test('a cross-site Origin or Sec-Fetch-Site is refused; a loopback origin is accepted', async () => {
    const sim = await start();
    const host = local(sim);
    for (const origin of ['https://attacker.example', 'null', 'http://127.0.0.1.attacker.example']) {
      const answer = await raw(
        sim,
        'PUT',
        '/control/webhooks/secret',
        { host, origin, ...json('{"secret":"x"}') },
        '{"secret":"x"}',
      );
      expect(answer.status, origin).toBe(403);
      expect(answer.body[0]!.description).toContain('Origin');
    }
    const crossSite = await raw(sim, 'POST', '/control/reset', { host, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body[0]!.description).toContain('cross-site');
    const fromLocalPage = await raw(sim, 'POST', '/control/reset', {
      host,
      origin: 'http://localhost:5173',
      'sec-fetch-site': 'same-origin',
    });
    expect(fromLocalPage.status).toBe(200);
  });

  test('a body must be declared application/json: form and text bodies are refused, unread', async () => {
    const sim = await start();
    const control = new SimulatorControl(sim.url);
    const before = await control.now();
    const host = local(sim);
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const answer = await raw(
        sim,
        'POST',
        '/control/clock/advance',
        { host, 'content-type': type, 'content-length': String(advanceBody.length) },
        advanceBody,
      );
      expect(answer.status, type).toBe(415);
      expect(answer.body[0]!.fields).toEqual(['content-type']);
    }
    const untyped = await raw(
      sim,
      'POST',
      '/control/clock/advance',
      { host, 'content-length': String(advanceBody.length) },
      advanceBody,
    );
    expect(untyped.status).toBe(415);
    expect((await control.now()).getTime() - before.getTime()).toBeLessThan(86_400_000);
    // A body-less POST needs no content type; a JSON one with parameters is accepted.
    expect((await raw(sim, 'POST', '/control/reset', { host })).status).toBe(200);
    const typed = await raw(
      sim,
      'POST',
      '/control/clock/advance',
      {
        host,
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(advanceBody.length),
      },
      advanceBody,
    );
    expect(typed.status).toBe(200);
    expect((await control.now()).getTime() - before.getTime()).toBeGreaterThanOrEqual(86_400_000);
  });

  test('the listen address is accepted as a Host, a wildcard listen address is not', () => {
    const req = (host: string) => ({ headers: { host } }) as unknown as IncomingMessage;
    expect(() => guardControlRequest(req('10.1.2.3:8480'), { listenHost: '10.1.2.3' })).not.toThrow();
    expect(() => guardControlRequest(req('10.1.2.4:8480'), { listenHost: '10.1.2.3' })).toThrow(/Host/);
    expect(() => guardControlRequest(req('0.0.0.0:8480'), { listenHost: '0.0.0.0' })).toThrow(/Host/);
    expect(() => guardControlRequest(req(''), { listenHost: '127.0.0.1' })).toThrow(/Host/);
    expect(() => guardControlRequest(req('127.8.9.10'), { listenHost: '0.0.0.0' })).not.toThrow();
  });
});

describe('control API guard with a token', () => {
  const token = 'control-token-0123456789abcdef-0123456789';

  test('requests without the bearer token are refused; the client with it works, under any Host', async () => {
    const sim = await start({ controlToken: token });
    const host = local(sim);
    expect((await raw(sim, 'GET', '/control/clock', { host })).status).toBe(401);
    const wrong = await raw(sim, 'POST', '/control/reset', { host, authorization: `Bearer ${token}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body[0]!.description).toBe('control API: missing or wrong bearer token');
    await expect(new SimulatorControl(sim.url).now()).rejects.toThrow(SimulatorControlError);
    const control = new SimulatorControl(sim.url, { token });
    expect((await control.health()).ok).toBe(true);
    await control.advanceClock(60);
    // A container reaching the simulator by name: the token stands in for the Host check.
    const byName = await raw(sim, 'GET', '/control/clock', {
      host: 'simulator:8480',
      authorization: `Bearer ${token}`,
    });
    expect(byName.status).toBe(200);
    // The registry API is not behind the control token.
    const registry = await raw(sim, 'GET', '/v2/enum/mno', {
      host,
      authorization: `Basic ${Buffer.from('local-api-key:local-api-secret').toString('base64')}`,
    });
    expect(registry.status).toBe(200);
  });

  test('tcr simulator reads the token from a 0600 file (flag or environment), at least 32 bytes', () => {
    const dir = tempDir('sim-token-');
    const file = join(dir, 'token');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    expect(parseSimulatorArgs(['--control-token-file', file], {})).toMatchObject({ controlToken: token });
    expect(parseSimulatorArgs([], { TCR_SIMULATOR_CONTROL_TOKEN_FILE: file })).toMatchObject({
      controlToken: token,
    });
    expect(parseSimulatorArgs([], {})).not.toHaveProperty('controlToken');
    chmodSync(file, 0o644);
    expect(() => parseSimulatorArgs(['--control-token-file', file], {})).toThrow(/chmod 600/);
    const short = join(dir, 'short');
    writeFileSync(short, 'short-token\n', { mode: 0o600 });
    expect(() => parseSimulatorArgs([], { TCR_SIMULATOR_CONTROL_TOKEN_FILE: short })).toThrow(
      /TCR_SIMULATOR_CONTROL_TOKEN_FILE .*shorter than 32 bytes/,
    );
    expect(controlApiWarning({ host: '0.0.0.0' })).toMatch(
      /WARNING listening on 0\.0\.0\.0 without a control token/,
    );
    expect(controlApiWarning({ host: '0.0.0.0', controlToken: token })).toBeUndefined();
    expect(controlApiWarning({ host: '127.0.0.1' })).toBeUndefined();
    expect(controlApiWarning({})).toBeUndefined();
    try {
      parseSimulatorArgs([], { TCR_SIMULATOR_CONTROL_TOKEN_FILE: short });
    } catch (error) {
      expect((error as Error).message).not.toContain('short-token');
    }
  });
});

describe('state file and faults', () => {
  test('the state file (it holds webhook secrets) is written 0600 whatever the umask', async () => {
    const dir = tempDir('sim-state-');
    const stateFile = join(dir, 'data', 'simulator.json');
    const previous = process.umask(0o022);
    try {
      const sim = await startSimulator({ rateLimits: false, stateFile });
      await new SimulatorControl(sim.url).setWebhookSecret({
        secret: 'a-webhook-secret-of-32-bytes-or-more!',
      });
      await sim.close();
      expect((statSync(stateFile).mode & 0o777).toString(8)).toBe('600');
      // A file left readable by an older version is replaced by an owner-only one at the next write.
      chmodSync(stateFile, 0o644);
      // So is a temp file a crashed writer left with a wider mode.
      writeFileSync(`${stateFile}.${process.pid}.tmp`, '{}', { mode: 0o644 });
      const again = await startSimulator({ rateLimits: false, stateFile });
      await again.close();
      expect((statSync(stateFile).mode & 0o777).toString(8)).toBe('600');
    } finally {
      process.umask(previous);
    }
  });

  test('fault patterns are length-limited and the number of armed faults is capped', async () => {
    const sim = await start();
    const control = new SimulatorControl(sim.url);
    const longest = `^/v2/${'a'.repeat(MAX_PATH_PATTERN_LENGTH - 5)}`;
    expect(longest).toHaveLength(MAX_PATH_PATTERN_LENGTH);
    await control.addFault({ kind: 'latency', pathPattern: longest, latencyMs: 1 });
    const tooLong = await control
      .addFault({ kind: 'latency', pathPattern: `${longest}b`, latencyMs: 1 })
      .catch((error: unknown) => error);
    expect(tooLong).toBeInstanceOf(SimulatorControlError);
    expect((tooLong as SimulatorControlError).status).toBe(400);
    expect(JSON.stringify((tooLong as SimulatorControlError).body)).toContain('pathPattern');
    for (let i = 1; i < MAX_FAULTS; i++) await control.addFault({ kind: 'webhook-drop', eventType: `E${i}` });
    const beyond = await control.addFault({ kind: 'webhook-drop' }).catch((error: unknown) => error);
    expect((beyond as SimulatorControlError).status).toBe(400);
    expect(JSON.stringify((beyond as SimulatorControlError).body)).toContain(`at most ${MAX_FAULTS} faults`);
    expect(await control.faults()).toHaveLength(MAX_FAULTS);
  });
});
