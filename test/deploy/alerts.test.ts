/**
 * The Prometheus alert rules (temporal-docker/prometheus/alerts.yml), issue 22 item 4: promtool (built
 * by scripts/setup-promtool.sh, which `npm test` runs first) checks them, and runs their unit tests
 * (alerts.test.yml: each alert fires on the series that mean trouble and stays silent on healthy
 * ones). Every metric an alert reads is one the product exports, every alert has a unit test that
 * expects it to fire, and every runbook link names a section of docs/operations.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/toolchain/paths.js';
import { promtool, unknownMetrics } from './monitoring-support.js';

const dir = join(projectRoot, 'temporal-docker/prometheus');
const rules = readFileSync(join(dir, 'alerts.yml'), 'utf8');
const unitTests = readFileSync(join(dir, 'alerts.test.yml'), 'utf8');

const alerts = [...rules.matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1]!);

/** GitHub's anchor of a heading: lower case, spaces to '-', punctuation dropped. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');

describe('alert rules', () => {
  it('pass promtool check rules and their unit tests', () => {
    expect(existsSync(promtool), `${promtool}: run bash scripts/setup-promtool.sh`).toBe(true);
    const run = (...args: string[]) => execFileSync(promtool, args, { cwd: dir, encoding: 'utf8' });
    expect(run('check', 'rules', '--lint=all', '--lint-fatal', 'alerts.yml')).toMatch(
      new RegExp(`SUCCESS: ${alerts.length} rules found`),
    );
    expect(run('test', 'rules', 'alerts.test.yml')).toMatch(/SUCCESS/);
  });

  it('read only metrics the product exports, and each is expected to fire by a unit test', () => {
    expect(alerts.length).toBeGreaterThanOrEqual(7);
    expect([...rules.matchAll(/\btcr_[a-z_]+/g)].length).toBeGreaterThan(0);
    expect(unknownMetrics(rules)).toEqual([]);
    for (const alert of alerts) {
      const firing = new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`);
      expect(unitTests, `${alert} has no unit test that expects it to fire`).toMatch(firing);
    }
  });

  it('link each alert to its section of docs/operations.md', () => {
    const docs = readFileSync(join(projectRoot, 'docs/operations.md'), 'utf8');
    const anchors = new Set([...docs.matchAll(/^#{2,5} (.+)$/gm)].map((m) => anchor(m[1]!)));
    const runbooks = [...rules.matchAll(/runbook: docs\/operations\.md#(\S+)/g)].map((m) => m[1]!);
    expect(runbooks.length).toBe(alerts.length);
    for (const runbook of runbooks) expect(anchors.has(runbook), runbook).toBe(true);
  });
});
