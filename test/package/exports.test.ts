/**
 * The library entry (`baton-sessions`, src/index.ts) offers one way to call each thing:
 * `openManager()` and its sub-objects, the errors and hints, and the types they name; at
 * most 80 exports, none `@deprecated`, and no surface (CLI, MCP …) reached from it. Every
 * export, value or type, is in test/golden/library-exports.golden.txt, so adding or removing
 * one is a change made on purpose (UPDATE_GOLDEN=1 rewrites it).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importEdges, ROOT, sourceFiles } from '../architecture/graph.js';
import { compareGolden } from '../golden/compare.js';

const MAX_EXPORTS = 80;
const SURFACES = ['src/cli/', 'src/mcp/', 'src/hooks/', 'src/ui/', 'src/otel/'];

/** Every name an entry exports, with `value` (exists at run time) or `type`, sorted. */
function exportsOf(entry: string): Array<{ name: string; kind: 'value' | 'type' }> {
  const file = path.join(ROOT, entry);
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  return checker
    .getExportsOfModule(module)
    .map((s) => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      // `export type { C }` of a class is a type for the user: it cannot be called or built.
      const typeOnly = (s.declarations ?? []).some(
        (d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly),
      );
      return {
        name: s.name,
        kind: target.flags & ts.SymbolFlags.Value && !typeOnly ? ('value' as const) : ('type' as const),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe('the library entry', () => {
  const names = exportsOf('src/index.ts');

  it(`exports at most ${MAX_EXPORTS} names, each in the golden list`, () => {
    expect(names.length).toBeLessThanOrEqual(MAX_EXPORTS);
    compareGolden(
      path.join(ROOT, 'test/golden/library-exports.golden.txt'),
      `${names.map((n) => `${n.kind} ${n.name}`).join('\n')}\n`,
    );
  });

  it('opens the manager one way: openManager(); SessionManager is a type, not a second constructor', async () => {
    const lib = (await import('../../src/index.js')) as Record<string, unknown>;
    expect(typeof lib['openManager']).toBe('function');
    expect(lib['SessionManager']).toBeUndefined();
    // What runs matches what the types say: the value exports are the golden's values.
    expect(Object.keys(lib).sort()).toEqual(
      names
        .filter((n) => n.kind === 'value')
        .map((n) => n.name)
        .sort(),
    );
  });

  it('reaches no surface through its imports or their imports', () => {
    const edges = importEdges(sourceFiles());
    const seen = new Set<string>(['src/index.ts']);
    const queue = ['src/index.ts'];
    const via = new Map<string, string>();
    while (queue.length) {
      const from = queue.shift()!;
      for (const e of edges) {
        if (e.from !== from || seen.has(e.to)) continue;
        seen.add(e.to);
        via.set(e.to, from);
        queue.push(e.to);
      }
    }
    const chain = (f: string): string => (via.has(f) ? `${chain(via.get(f)!)} -> ${f}` : f);
    expect([...seen].filter((f) => SURFACES.some((s) => f.startsWith(s))).map(chain)).toEqual([]);
  });
});

describe('src/', () => {
  it('holds no @deprecated symbol: nothing is published yet, so a rename needs no alias', () => {
    const hits = sourceFiles().flatMap((f) =>
      fs
        .readFileSync(path.join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.includes('@deprecated') ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });
});
