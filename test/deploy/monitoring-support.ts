/** What the alert-rule and dashboard tests share: promtool, and the metric names src/ writes. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot, toolchainVersions, toolsDir } from '../../src/toolchain/paths.js';

/** promtool, built by scripts/setup-promtool.sh (`npm test` runs it first). */
export const promtool = join(toolsDir(), 'promtool', toolchainVersions().PROMTOOL_VERSION ?? '', 'promtool');

/**
 * The `tcr_` metric names src/ writes, as patterns: string literals, and template literals whose
 * `${...}` parts match a word (`tcr_needs_action_${change}_total`).
 */
export function exportedMetricPatterns(): RegExp[] {
  let src = '';
  const folder = join(projectRoot, 'src');
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && entry.name.endsWith('.ts'))
      src += readFileSync(join(entry.parentPath, entry.name), 'utf8');
  return [...src.matchAll(/['`](tcr_[a-z_]*(?:\$\{\w+\}[a-z_]*)*)['`]/g)].map(
    (m) => new RegExp(`^${m[1]!.replace(/\$\{\w+\}/g, '[a-z]+')}$`),
  );
}

/** The `tcr_` metrics a PromQL text reads that src/ does not write (histogram suffixes stripped). */
export function unknownMetrics(promql: string, exported: RegExp[] = exportedMetricPatterns()): string[] {
  const names = new Set([...promql.matchAll(/\btcr_[a-z_]+/g)].map((m) => m[0]));
  return [...names].filter((name) => {
    const base = name.replace(/_(bucket|count|sum)$/, '');
    return !exported.some((pattern) => pattern.test(base));
  });
}
