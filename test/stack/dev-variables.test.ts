/**
 * `tcr dev`'s environment variables (docs/local-stack.md's "Flags and environment" table): each one
 * changes the parsed options (flags win over it), and one `tcr dev` process started with the
 * environment only shows their effect on the running stack: data folder, namespace, time scale,
 * examples off, quiet output, ports asked for as 0, the worker metrics port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DevOptions, parseDevOptions } from '../../src/stack/dev-options.js';
import { projectRoot } from '../../src/toolchain/paths.js';

const defaults = parseDevOptions([], {}) as DevOptions;

/** Variable → a value, the option it sets to what, and the flag that wins over it. */
const cases: Record<string, { value: string; expect: Partial<DevOptions>; flag: string[] }> = {
  TCR_DATA_DIR: {
    value: '/tmp/tcr-vars-data',
    expect: { dataDir: '/tmp/tcr-vars-data' },
    flag: ['--data-dir', '/x'],
  },
  TCR_TEMPORAL_PORT: { value: '17233', expect: { temporalPort: 17233 }, flag: ['--port', '1'] },
  TCR_UI_PORT: { value: '18233', expect: { uiPort: 18233 }, flag: ['--ui-port', '1'] },
  TCR_SIMULATOR_PORT: { value: '18480', expect: { simulatorPort: 18480 }, flag: ['--simulator-port', '1'] },
  TCR_INGRESS_PORT: { value: '18470', expect: { ingressPort: 18470 }, flag: ['--ingress-port', '1'] },
  TCR_WORKER_METRICS_PORT: { value: '19464', expect: { metricsPort: 19464 }, flag: ['--metrics-port', '1'] },
  TCR_CODEC_PORT: { value: '18234', expect: { codecPort: 18234 }, flag: ['--codec-port', '1'] },
  TCR_TIME_SCALE: { value: '7200', expect: { timeScale: 7200 }, flag: ['--time-scale', '2'] },
  TCR_MAX_RECORDS_PER_PAGE: {
    value: '40',
    expect: { maxRecordsPerPage: 40 },
    flag: ['--max-records-per-page', '7'],
  },
  TCR_STRICT: { value: '1', expect: { strict: true }, flag: [] },
  TEMPORAL_NAMESPACE: { value: 'tcr-vars', expect: { namespace: 'tcr-vars' }, flag: ['--namespace', 'x'] },
  TCR_NO_EXAMPLES: { value: '1', expect: { examples: false }, flag: [] },
  TCR_QUIET: { value: '1', expect: { quiet: true }, flag: [] },
};

describe('tcr dev options from the environment', () => {
  for (const [variable, c] of Object.entries(cases)) {
    it(`${variable}=${c.value} sets ${Object.keys(c.expect).join(', ')}`, () => {
      const parsed = parseDevOptions([], { [variable]: c.value }) as DevOptions;
      expect(parsed).toEqual({ ...defaults, ...c.expect });
      // Unset, the option keeps its default (so the case above shows the variable's effect).
      for (const [key, value] of Object.entries(c.expect))
        expect(defaults[key as keyof DevOptions]).not.toEqual(value);
      if (c.flag.length > 0) {
        const withFlag = parseDevOptions(c.flag, { [variable]: c.value }) as DevOptions;
        for (const key of Object.keys(c.expect))
          expect(withFlag[key as keyof DevOptions], 'the flag wins').not.toEqual(
            parsed[key as keyof DevOptions],
          );
      }
    });
  }

  it('a switch variable set to 0, false or empty is off', () => {
    for (const value of ['0', 'false', 'FALSE', ''])
      expect(parseDevOptions([], { TCR_QUIET: value, TCR_NO_EXAMPLES: value, TCR_STRICT: value })).toEqual(
        defaults,
      );
  });

  it('a bad port or time scale from the environment is a usage error naming the option', () => {
    for (const [env, message] of [
      [{ TCR_UI_PORT: '70000' }, /--ui-port must be a port number/],
      [{ TCR_CODEC_PORT: 'x' }, /--codec-port must be a port number/],
      [{ TCR_TIME_SCALE: '0' }, /--time-scale must be a positive number/],
      [{ TCR_MAX_RECORDS_PER_PAGE: '0' }, /--max-records-per-page must be a positive integer/],
      [{ TCR_MAX_RECORDS_PER_PAGE: '2.5' }, /--max-records-per-page must be a positive integer/],
    ] as const)
      expect(() => parseDevOptions([], env)).toThrow(message);
  });

  it("every variable of docs/local-stack.md's table has a case here", () => {
    const doc = readFileSync(join(projectRoot, 'docs/local-stack.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## Flags and environment'), doc.indexOf('## Example orders'));
    const documented = [...table.matchAll(/^\| `--[^|]+\| `([A-Z_]+)(?:=1)?` \|/gm)].map((m) => m[1]!);
    expect(documented.sort()).toEqual(Object.keys(cases).sort());
  });
});

describe('tcr dev started with the environment only', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tcr-dev-vars-'));
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('keeps its state in TCR_DATA_DIR, serves TEMPORAL_NAMESPACE, runs the simulator at TCR_TIME_SCALE, submits no examples and prints the URLs only', async () => {
    // dist/ (npm run build first, as npm test does); ports 0: any free ones.
    const proc = spawn(process.execPath, [join(projectRoot, 'dist/cli/main.js'), 'dev'], {
      env: {
        ...process.env,
        TCR_DATA_DIR: dataDir,
        TEMPORAL_NAMESPACE: 'tcr-vars',
        TCR_TIME_SCALE: '7200',
        TCR_NO_EXAMPLES: '1',
        TCR_QUIET: '1',
        TCR_TEMPORAL_PORT: '0',
        TCR_UI_PORT: '0',
        TCR_SIMULATOR_PORT: '0',
        TCR_INGRESS_PORT: '0',
        TCR_CODEC_PORT: '0',
        TCR_WORKER_METRICS_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let out = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    // The URL block is printed once the stack is up (or the process exits first).
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes('Ctrl-C stops everything')) resolve();
      };
      proc.stdout?.on('data', check);
      proc.once('exit', (code) => reject(new Error(`tcr dev exited (${code}) before it was up:\n${out}`)));
    });
    const url = (label: string) => new RegExp(`^${label} +(\\S+)`, 'm').exec(out)?.[1] ?? '';

    // TCR_QUIET: no start line, no "·" step lines, no progress lines: the URL block only.
    expect(out).not.toContain('starting the local stack');
    expect(out).not.toMatch(/^· /m);
    // TCR_NO_EXAMPLES.
    expect(out).toMatch(/^Examples +off/m);
    expect(existsSync(join(dataDir, 'examples-submitted.json'))).toBe(false);
    // TCR_DATA_DIR: the stack's state is there.
    for (const file of ['temporal.sqlite', 'simulator.json', 'payload-keys.json', 'temporal-cli.toml'])
      expect(existsSync(join(dataDir, file)), file).toBe(true);
    // TEMPORAL_NAMESPACE.
    expect(out).toMatch(/\(namespace tcr-vars\)/);
    expect(url('Temporal Web UI')).toMatch(/\/namespaces\/tcr-vars\/workflows$/);
    // Ports 0: none of the defaults, and each answers.
    const ports = ['Temporal \\(gRPC\\)', 'Simulator control', 'Ingress webhook', 'Codec server'].map((l) =>
      Number(/:(\d+)/.exec(url(l))?.[1]),
    );
    for (const port of ports) expect(port).toBeGreaterThan(0);
    expect(ports).not.toContain(7233);
    expect(ports).not.toContain(8480);
    expect(ports).not.toContain(8470);
    expect(ports).not.toContain(8234);
    // TCR_TIME_SCALE: the simulator's clock runs at 7200x.
    const clock = await fetch(`${url('Simulator control')}/clock`);
    expect(((await clock.json()) as { timeScale: number }).timeScale).toBe(7200);
    // TCR_WORKER_METRICS_PORT=0: a real port is printed, and the worker metrics are served there.
    const metrics = /(http:\/\/127\.0\.0\.1:(\d+)\/metrics) \(workers\)/.exec(out);
    expect(Number(metrics?.[2])).toBeGreaterThan(0);
    expect((await fetch(metrics![1]!)).status).toBe(200);
  }, 180_000);
});
