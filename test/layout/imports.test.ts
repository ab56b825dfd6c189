/**
 * Imports go down, never up (issue 20). Every relative import, re-export and dynamic import under
 * src/ is read with a regex (type-only imports count too: they are dependencies a reader follows)
 * and checked against the layers below, bottom → top. A module may import its own module and any
 * layer below it; it may not import a layer above, nor a sibling module of its own layer
 * (activities and workflows meet only through src/contracts). The modules in CONTRACT_ONLY may not
 * import src/workflows even though it is below them: they use src/contracts. Workflow code may not
 * import the contract files in NOT_FOR_WORKFLOWS (zod at run time).
 *
 * The edges the code still has and cannot lose yet are listed in ALLOWED, each with its reason.
 * Any other upward or sideways import fails, and so does an ALLOWED entry the code no longer has
 * (remove it: the list only shrinks).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Bottom → top. Each entry is one layer; the names in it are sibling modules (src/<name>). */
const LAYERS: readonly (readonly string[])[] = [
  // Small helpers with no imports of their own (src/common): every layer may use them.
  ['common'],
  // The registry client and schemas, logging and metrics, the payload codec: they know no workflow.
  ['registry', 'observability', 'codec'],
  // Ids, task queues, search attributes, signals, the activity interfaces: what both sides share.
  ['contracts'],
  // Worker and client configuration; the pinned Temporal dev-server build.
  ['config', 'toolchain'],
  // The two sides of the activity interface.
  ['activities', 'workflows'],
  // The order API (src/orders), then the Nexus service over it (src/nexus), which the workers serve.
  ['orders'],
  ['nexus'],
  // Processes and edges that start or feed workflows; the registry simulator.
  ['workers', 'ingress', 'simulator'],
  // The local stack (simulator + dev server + workers + ingress).
  ['stack'],
  ['cli'],
  // The package entry point (src/index.ts).
  ['index.ts'],
];

/**
 * Modules above the workflows that reach them only through src/contracts (or not at all): they may
 * not import src/workflows. That is every one of them: the order client, the CLI, the stack and the
 * package entry start, steer and read workflows by their contracts (type names, signatures, updates,
 * requests, status types).
 */
const CONTRACT_ONLY: readonly string[] = [
  'ingress',
  'workers',
  'simulator',
  'orders',
  'nexus',
  'stack',
  'cli',
  'index.ts',
];

/**
 * Contract files that workflow code may not import: the zod schemas the edge parses requests with
 * (workflow code checks requests without zod: src/workflows/request-checks.ts says why).
 */
const NOT_FOR_WORKFLOWS: readonly string[] = [
  'contracts/brand-requests.ts',
  'contracts/campaign-requests.ts',
];

/**
 * Upward or sideways imports still in the code, as "from -> to" (paths under src/). Each says why it
 * is not fixed yet; fixing one means deleting its line here.
 */
const ALLOWED: ReadonlyMap<string, string> = new Map<string, string>([
  // None left: the last (the campaign activities reading the brand's status) ended with the brand
  // contract, src/contracts/brand.ts.
]);

/**
 * Groups of files that import each other (directly or round a loop), each sorted, still in the code.
 * A new cycle fails; so does a listed one that is gone.
 */
const ALLOWED_CYCLES: ReadonlyMap<string, string> = new Map<string, string>([
  // None left: the last (registry/rules.ts <-> registry/schemas.ts) ended with registry/rule-types.ts.
]);

/** Strongly connected groups of more than one file (Tarjan), each as its sorted paths. */
function cycles(edges: readonly string[]): string[] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    const [from = '', to = ''] = edge.split(' -> ');
    next.set(from, [...(next.get(from) ?? []), to]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      group.push(w);
    }
    if (group.length > 1) found.push(group.sort().join(' '));
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The module of a path under src/: its first folder, or the file itself at the top. */
function moduleOf(path: string): string {
  return path.split('/')[0] ?? path;
}

function layerOf(module: string): number {
  const layer = LAYERS.findIndex((names) => names.includes(module));
  if (layer < 0) throw new Error(`src/${module} is in no layer: add it to LAYERS`);
  return layer;
}

/** Whether `from` may import `to` (both paths under src/). */
function allowedImport(from: string, to: string): boolean {
  const [a, b] = [moduleOf(from), moduleOf(to)];
  if (b === 'workflows' && CONTRACT_ONLY.includes(a)) return false;
  if (a === 'workflows' && NOT_FOR_WORKFLOWS.includes(to)) return false;
  return a === b || layerOf(b) < layerOf(a);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`. */
const specifiers =
  /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every relative import edge under src/, as "from -> to" paths relative to src/. */
function importEdges(srcDir: string): string[] {
  const edges: string[] = [];
  for (const file of sourceFiles(srcDir)) {
    const from = relative(srcDir, file);
    for (const match of readFileSync(file, 'utf8').matchAll(specifiers)) {
      const specifier = match[1] ?? match[2] ?? '';
      if (!specifier.startsWith('.')) continue;
      const to = normalize(join(dirname(from), specifier)).replace(/\.js$/, '.ts');
      edges.push(`${from} -> ${to}`);
    }
  }
  return edges;
}

describe('import direction', () => {
  const src = join(root, 'src');
  const edges = importEdges(src);

  it('reads the imports (the regex finds the edges it should)', () => {
    expect(edges).toContain('registry/schemas.ts -> registry/reference.ts');
    expect(edges).toContain('workflows/index.ts -> workflows/brand/workflow.ts');
    expect(edges).toContain('contracts/campaign-activity-types.ts -> contracts/activity-types.ts');
    expect(edges.length).toBeGreaterThan(500);
  });

  it('places every module under src/ in a layer', () => {
    const modules = new Set(readdirSync(src));
    for (const module of modules) expect(() => layerOf(module), module).not.toThrow();
  });

  it('no module imports a layer above it or a sibling module, outside the listed exceptions', () => {
    const violations = edges.filter((edge) => {
      const [from = '', to = ''] = edge.split(' -> ');
      return !allowedImport(from, to);
    });
    expect(violations.filter((edge) => !ALLOWED.has(edge))).toEqual([]);
    // An exception the code no longer needs is removed from the list.
    expect([...ALLOWED.keys()].filter((edge) => !violations.includes(edge))).toEqual([]);
  });

  it('has no import cycle between files, outside the listed ones', () => {
    const found = cycles(edges);
    expect(found.filter((group) => !ALLOWED_CYCLES.has(group))).toEqual([]);
    expect([...ALLOWED_CYCLES.keys()].filter((group) => !found.includes(group))).toEqual([]);
  });

  it('finds cycles', () => {
    expect(cycles(['a -> b', 'b -> c', 'c -> a', 'c -> d', 'd -> d2'])).toEqual(['a b c']);
    expect(cycles(['a -> b', 'b -> c'])).toEqual([]);
  });

  it('judges edges by layer', () => {
    expect(allowedImport('workflows/brand/workflow.ts', 'contracts/ids.ts')).toBe(true);
    expect(allowedImport('registry/schemas.ts', 'workflows/ids.ts')).toBe(false);
    expect(allowedImport('config/accounts.ts', 'workflows/task-queues.ts')).toBe(false);
    expect(allowedImport('activities/campaign-activities.ts', 'workflows/ids.ts')).toBe(false);
    expect(allowedImport('workflows/brand/state.ts', 'activities/types.ts')).toBe(false);
    expect(allowedImport('toolchain/dev-server.ts', 'workflows/search-attributes.ts')).toBe(false);
    expect(allowedImport('ingress/router.ts', 'workflows/signals.ts')).toBe(false);
    expect(allowedImport('ingress/router.ts', 'contracts/signals.ts')).toBe(true);
    expect(allowedImport('cli/list.ts', 'workflows/brand/state.ts')).toBe(false);
    expect(allowedImport('orders/brand-client.ts', 'workflows/brand/workflow.ts')).toBe(false);
    expect(allowedImport('index.ts', 'workflows/index.ts')).toBe(false);
    expect(allowedImport('orders/brand-client.ts', 'contracts/brand-operations.ts')).toBe(true);
    expect(allowedImport('workflows/brand/handlers.ts', 'contracts/brand-operations.ts')).toBe(true);
    expect(allowedImport('workflows/brand/handlers.ts', 'contracts/brand-requests.ts')).toBe(false);
    expect(allowedImport('orders/request-schemas.ts', 'contracts/brand-requests.ts')).toBe(true);
  });
});
