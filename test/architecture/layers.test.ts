/**
 * The layer rules of docs/architecture.md, checked on the import graph of src/ (./graph.ts).
 * Each failure names the file, the import and the rule it breaks. A new surface (src/hooks,
 * src/ui, src/otel …) is covered by adding its folder to SURFACES.
 */
import { describe, expect, it } from 'vitest';
import { cycles, importEdges, sourceFiles } from './graph.js';
import type { Edge } from './graph.js';

/** The surfaces: they parse input, call the manager through its one door, and render. */
const SURFACES = [
  'src/cli/',
  'src/mcp/',
  'src/hooks/',
  'src/ui/',
  'src/otel/',
  'src/langgraph/',
  'src/claude-agent-sdk/',
];
const DOOR = 'src/manager/index.ts';

const isDomain = (f: string): boolean => f.startsWith('src/domain/');
const isFormats = (f: string): boolean => f.startsWith('src/formats/');
const isManager = (f: string): boolean => f.startsWith('src/manager/');
const isTesting = (f: string): boolean => f.startsWith('src/testing/');
const surfaceOf = (f: string): string | undefined => SURFACES.find((s) => f.startsWith(s));

/** The backend a file belongs to: `src/store/<backend>/` or the memory store, else undefined. */
function backendOf(f: string): string | undefined {
  if (f === 'src/store/memory.ts') return f;
  const m = /^src\/store\/([^/]+)\//.exec(f);
  return m ? `src/store/${m[1]}/` : undefined;
}

/** `src/store/*.ts` modules every backend may share: the contract, errors, atomic writes … */
const isStoreShared = (f: string): boolean =>
  /^src\/store\/[^/]+\.ts$/.test(f) && f !== 'src/store/open.ts' && f !== 'src/store/memory.ts';

interface Rule {
  /** Short name printed with each failure. */
  id: string;
  name: string;
  /** Whether the rule speaks about imports made by `from`. */
  applies: (from: string) => boolean;
  /** Whether the import is allowed by the rule. */
  allows: (e: Edge) => boolean;
}

const RULES: Rule[] = [
  {
    id: 'domain-is-pure',
    name: 'src/domain is pure: it imports nothing of ours outside src/domain',
    applies: isDomain,
    allows: (e) => isDomain(e.to),
  },
  {
    id: 'backend-imports',
    name: 'a backend (src/store/<backend>/**, src/store/memory.ts) imports only its own files, the shared src/store/*.ts modules and src/domain',
    applies: (f) => backendOf(f) !== undefined,
    allows: (e) => backendOf(e.to) === backendOf(e.from) || isStoreShared(e.to) || isDomain(e.to),
  },
  {
    id: 'store-shared-imports',
    name: 'a shared store module (src/store/*.ts but open.ts and memory.ts) imports only shared store modules and src/domain',
    applies: isStoreShared,
    allows: (e) => isStoreShared(e.to) || isDomain(e.to),
  },
  {
    id: 'only-open-knows-backends',
    name: 'only src/store/open.ts knows the backends: nothing outside a backend imports it but open.ts',
    // A backend importing another backend is already the backend rule's failure.
    applies: (f) => f !== 'src/store/open.ts' && backendOf(f) === undefined,
    allows: (e) => backendOf(e.to) === undefined || backendOf(e.to) === backendOf(e.from),
  },
  {
    id: 'formats-imports',
    name: 'src/formats (foreign layouts) imports only src/formats and src/domain',
    applies: isFormats,
    allows: (e) => isFormats(e.to) || isDomain(e.to),
  },
  {
    id: 'surface-through-the-door',
    name: `a surface (${SURFACES.join(', ')}) imports of ours only its own folder and ${DOOR}; src/cli may also start another surface (baton mcp …)`,
    applies: (f) => surfaceOf(f) !== undefined,
    allows: (e) =>
      e.to === DOOR ||
      surfaceOf(e.to) === surfaceOf(e.from) ||
      (surfaceOf(e.from) === 'src/cli/' && surfaceOf(e.to) !== undefined),
  },
  {
    id: 'manager-below-surfaces',
    name: 'src/manager imports no surface and not the conformance suite',
    applies: isManager,
    allows: (e) => surfaceOf(e.to) === undefined && !isTesting(e.to),
  },
  {
    id: 'testing-through-the-contract',
    name: 'src/testing (the conformance suite) drives a store through its contract: it imports only src/testing, shared store modules and src/domain',
    applies: isTesting,
    allows: (e) => isTesting(e.to) || isStoreShared(e.to) || isDomain(e.to),
  },
];

/** Every import that breaks a rule, one line each: file, import, rule. */
export function layerViolations(edges: Edge[]): string[] {
  const out = new Set<string>();
  for (const e of edges)
    for (const r of RULES)
      if (r.applies(e.from) && !r.allows(e)) out.add(`${e.from}: import '${e.spec}' breaks ${r.id}`);
  return [...out];
}

describe('layering', () => {
  const files = sourceFiles();
  const edges = importEdges(files);

  it('reads the whole graph (a sanity check of the reader)', () => {
    expect(files.length).toBeGreaterThan(50);
    // A known import of each kind the reader must see: static, type-only, dynamic.
    expect(edges.some((e) => e.from === 'src/index.ts' && e.to === 'src/domain/errors.ts')).toBe(true);
    expect(edges.some((e) => e.from === 'src/cli/main.ts' && e.to === 'src/cli/context.ts')).toBe(true);
    expect(edges.some((e) => e.from === 'src/cli/commands/mcp.ts' && e.to === 'src/mcp/stdio.ts')).toBe(true);
  });

  it('every import keeps to the layer rules', () => {
    const v = layerViolations(edges);
    const broken = RULES.filter((r) => v.some((line) => line.endsWith(` breaks ${r.id}`))).map(
      (r) => `  ${r.id}: ${r.name}`,
    );
    expect(
      v,
      `${v.length} import(s) break the layer rules (docs/architecture.md):\n${v.join('\n')}\nThe rules:\n${broken.join('\n')}`,
    ).toEqual([]);
  });

  it('has no import cycle (type-only imports included)', () => {
    const c = cycles(edges);
    const lines = c.map((scc) => {
      const inCycle = new Set(scc);
      const links = edges
        .filter((e) => inCycle.has(e.from) && inCycle.has(e.to))
        .map((e) => `  ${e.from}: import '${e.spec}'`);
      return `cycle through ${scc.join(', ')}:\n${[...new Set(links)].join('\n')}`;
    });
    expect(lines, `${c.length} import cycle(s):\n${lines.join('\n')}`).toEqual([]);
  });
});
