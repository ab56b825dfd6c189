/**
 * The Grafana dashboard and provisioning in temporal-docker/grafana (issue 22, item 4), checked
 * structurally: the dashboard parses, every panel has a unique id, a place on the grid and targets on
 * the provisioned Prometheus data source; every query is valid PromQL (promtool checks them as
 * recording rules) and reads only metrics the product writes; Prometheus's own configuration passes
 * `promtool check config` with the alert rules it loads.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/toolchain/paths.js';
import { tempDir } from '../support/temp-dir.js';
import { promtool, unknownMetrics } from './monitoring-support.js';

const dir = join(projectRoot, 'temporal-docker');
const read = (path: string) => readFileSync(join(dir, path), 'utf8');

interface Panel {
  id: number;
  title: string;
  datasource?: { uid?: string };
  gridPos?: { h: number; w: number; x: number; y: number };
  targets?: { refId: string; expr: string; datasource?: { uid?: string } }[];
}

const dashboard = JSON.parse(read('grafana/dashboards/tcr.json')) as {
  uid: string;
  title: string;
  panels: Panel[];
};
const datasourceUid = /^\s+uid: (\S+)$/m.exec(read('grafana/provisioning/datasources/prometheus.yml'))?.[1];
const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

describe('the Grafana dashboard', () => {
  it('has a uid, a title and panels each with a unique id, a grid place and queries on the provisioned data source', () => {
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    expect(dashboard.title.length).toBeGreaterThan(0);
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(8);
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    expect(datasourceUid).toBeDefined();
    for (const panel of dashboard.panels) {
      expect(panel.gridPos, panel.title).toBeDefined();
      expect(panel.datasource?.uid, panel.title).toBe(datasourceUid);
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? [])
        expect(target.datasource?.uid, panel.title).toBe(datasourceUid);
    }
  });

  it('queries valid PromQL over metrics the product writes', () => {
    expect(unknownMetrics(exprs.join('\n'))).toEqual([]);
    // promtool parses each query as a recording rule.
    const folder = tempDir('tcr-dashboard-');
    const rules = [
      'groups:',
      '  - name: dashboard',
      '    rules:',
      ...exprs.flatMap((expr, i) => [
        `      - record: tcr:dashboard:${i}`,
        `        expr: ${JSON.stringify(expr)}`,
      ]),
    ].join('\n');
    writeFileSync(join(folder, 'dashboard-rules.yml'), `${rules}\n`);
    const out = execFileSync(promtool, ['check', 'rules', join(folder, 'dashboard-rules.yml')], {
      encoding: 'utf8',
    });
    expect(out).toMatch(new RegExp(`SUCCESS: ${exprs.length} rules found`));
  });

  it('is provisioned from the folder the dashboard provider reads, with Prometheus loading the alert rules', () => {
    expect(read('grafana/provisioning/dashboards/tcr.yml')).toMatch(
      /path: \/var\/lib\/grafana\/dashboards$/m,
    );
    expect(read('grafana/provisioning/datasources/prometheus.yml')).toMatch(
      /url: http:\/\/prometheus:9090$/m,
    );
    const out = execFileSync(promtool, ['check', 'config', 'prometheus/prometheus.yml'], {
      cwd: dir,
      encoding: 'utf8',
    });
    const alerts = [...read('prometheus/alerts.yml').matchAll(/^\s*- alert: /gm)].length;
    expect(out).toMatch(new RegExp(`SUCCESS: ${alerts} rules found`));
  });
});
