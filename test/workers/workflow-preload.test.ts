/**
 * The workflow-code modules a worker thread loads once and shares between workflows
 * (src/workers/workflow-preload.ts): each exists, and neither it nor anything it imports touches
 * `@temporalio/workflow` (a workflow's state) or keeps state of its own at module level (a top-level
 * `let`, or a Map, Set or array made at load), which would then be shared between workflows.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/toolchain/paths.js';
import { PRELOADED_WORKFLOW_MODULES, workflowPreloadModules } from '../../src/workers/workflow-preload.js';

const src = join(projectRoot, 'src');

/** Every module `path` imports, itself included (relative imports followed; packages named). */
function importClosure(path: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    // Type-only imports leave nothing in the bundle.
    for (const [, specifier] of text.matchAll(/^(?:import|export)\s(?!type\s)[^'"]*?from\s+'([^']+)'/gm)) {
      if (specifier!.startsWith('.')) visit(join(dirname(file), specifier!.replace(/\.js$/, '.ts')));
      else packages.add(specifier!);
    }
  };
  visit(join(src, `${path}.ts`));
  return { files: [...files], packages: [...packages] };
}

describe('workflow modules shared by every workflow of a worker thread', () => {
  it('resolves each listed module to a file', () => {
    expect(workflowPreloadModules()).toHaveLength(PRELOADED_WORKFLOW_MODULES.length);
  });

  it.each(PRELOADED_WORKFLOW_MODULES)('%s holds no workflow state', (path) => {
    const { files, packages } = importClosure(path);
    expect(packages.filter((p) => p.startsWith('@temporalio/workflow'))).toEqual([]);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const state = text.match(
        /^(?:export )?(?:let|var) |^(?:export )?const \w+ = (?:new (?:Map|Set)|\[\])/m,
      );
      expect(state, `${relative(projectRoot, file)} keeps module state`).toBeNull();
    }
  });
});
