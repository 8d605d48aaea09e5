import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/cli.js';

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => path.join(entry.parentPath, entry.name));
}

/** The relative specifiers a module depends on: static imports and re-exports (type-only included), and `import()` of a literal. */
function relativeImports(text: string): string[] {
  const statics = [...text.matchAll(/^(?:import|export)[^'"`]*?from\s+['"](\.[^'"]+)['"]/gm)];
  const dynamics = [...text.matchAll(/\bimport\(\s*(?:'(\.[^']+)'|"(\.[^"]+)"|`(\.[^`$]+)`)\s*\)/g)];
  return [...statics.map((m) => m[1]!), ...dynamics.map((m) => (m[1] ?? m[2] ?? m[3])!)];
}

describe('the house rules', () => {
  it('keeps src/host free of CLI, rendering, prompt and file-format libraries and of process globals', async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(path.join(repoRoot, 'src/host'))) {
      const text = await readFile(file, 'utf8');
      if (/from ['"](@oclif\/core|listr2|enquirer|yaml|smol-toml)['"]|import\(['"](listr2|enquirer|yaml|smol-toml)['"]\)/.test(text)) offenders.push(`${file}: forbidden import`);
      if (/process\.(env|stdin)\b/.test(text)) offenders.push(`${file}: reads process.env/stdin`);
    }
    expect(offenders).toEqual([]);
  });

  it('keeps the direction of dependence between the layers of src/', async () => {
    // commands → cli → ui, workflow → host ← tools; hooks run their programs with the process machinery of tools.
    const mayImport: Record<string, readonly string[]> = {
      host: [],
      boot: [],
      tools: ['host'],
      hooks: ['host', 'tools'],
      workflow: ['host', 'tools', 'hooks'],
      ui: ['host', 'workflow'],
    };
    const offenders: string[] = [];
    for (const [layer, allowed] of Object.entries(mayImport)) {
      for (const file of await sourceFiles(path.join(repoRoot, 'src', layer))) {
        for (const specifier of relativeImports(await readFile(file, 'utf8'))) {
          const target = path.relative(path.join(repoRoot, 'src'), path.resolve(path.dirname(file), specifier));
          const targetLayer = target.split(path.sep)[0]!;
          const inside = targetLayer === layer || allowed.includes(targetLayer) || target === 'index.ts';
          if (target.startsWith('..') || !inside) offenders.push(`${path.relative(repoRoot, file)} → ${specifier}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('keeps src/workflow, src/hooks and src/ui away from the CLI framework, and src/hooks and src/workflow away from the terminal', async () => {
    const offenders: string[] = [];
    const rules: [string, RegExp][] = [
      ['workflow', /from ['"](@oclif\/core|listr2|enquirer)['"]|process\.stdin/],
      ['hooks', /from ['"](@oclif\/core|listr2|enquirer)['"]|process\.stdin/],
      ['ui', /from ['"]@oclif\/core['"]/],
    ];
    for (const [layer, forbidden] of rules) {
      for (const file of await sourceFiles(path.join(repoRoot, 'src', layer))) {
        if (forbidden.test(await readFile(file, 'utf8'))) offenders.push(path.relative(repoRoot, file));
      }
    }
    expect(offenders).toEqual([]);
  });

  it('has no import cycles in src/, type-only imports and lazy import() included', async () => {
    const graph = new Map<string, string[]>();
    for (const file of await sourceFiles(path.join(repoRoot, 'src'))) {
      const imports = relativeImports(await readFile(file, 'utf8'));
      graph.set(
        file,
        imports.map((specifier) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts')),
      );
    }
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (node: string, trail: string[]) => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'visiting') {
        cycles.push([...trail.slice(trail.indexOf(node)), node].map((f) => path.relative(repoRoot, f)).join(' → '));
        return;
      }
      state.set(node, 'visiting');
      for (const next of graph.get(node) ?? []) if (graph.has(next)) visit(next, [...trail, node]);
      state.set(node, 'done');
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  it('names in package.json (bin, lockfile, scripts) a CLI entry that exists', async () => {
    const pkg = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    const lock = JSON.parse(await readFile(path.join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: { '': { bin: Record<string, string> } } };
    const named = [
      ...Object.values(pkg.bin),
      ...Object.values(lock.packages[''].bin),
      ...Object.values(pkg.scripts).flatMap((script) => [...script.matchAll(/\bbin\/[\w.-]+/g)].map((m) => m[0])),
    ];
    expect(named.length).toBeGreaterThan(2);
    const missing: string[] = [];
    for (const file of new Set(named)) await readFile(path.join(repoRoot, file)).catch(() => missing.push(file));
    expect(missing).toEqual([]);
  });

  it('has no focused or skipped tests', async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(path.join(repoRoot, 'test'))) {
      if (file.endsWith('structure.test.ts')) continue;
      const text = await readFile(file, 'utf8');
      if (/\b(it|test|describe)\.(only|skip)\(/.test(text)) offenders.push(path.relative(repoRoot, file));
    }
    expect(offenders).toEqual([]);
  });
});
