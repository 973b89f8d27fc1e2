/**
 * The import graph of `src/`, read with the TypeScript compiler's own pre-processor
 * (`ts.preProcessFile`): static imports, `export … from`, `import type`, dynamic `import()`
 * and `typeof import()` all count, because a type-only import couples modules as much as any.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SRC = path.join(ROOT, 'src');

/** One import of one of our modules: who imports what, as paths relative to the repository. */
export interface Edge {
  from: string;
  to: string;
  /** The specifier as written, for the failure message. */
  spec: string;
}

/** Every `.ts` file under src/, as repository-relative paths with `/`, sorted. */
export function sourceFiles(dir = SRC): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(abs));
    // .tsx: the dashboard's web page (src/ui/web) follows the same rules.
    else if ((e.name.endsWith('.ts') || e.name.endsWith('.tsx')) && !e.name.endsWith('.d.ts')) out.push(rel(abs));
  }
  return out.sort();
}

function rel(abs: string): string {
  return path.relative(ROOT, abs).split(path.sep).join('/');
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the sources), or null. */
function resolve(fromFile: string, spec: string): string | null {
  const base = path.resolve(ROOT, path.dirname(fromFile), spec);
  const candidates = [
    base.replace(/\.(c|m)?js$/, '.$1ts'),
    base.replace(/\.js$/, '.tsx'),
    base,
    `${base}.ts`,
    path.join(base, 'index.ts'),
  ];
  for (const c of candidates) if (fs.existsSync(c) && fs.statSync(c).isFile()) return rel(c);
  return null;
}

/** Every import between our own modules (package imports are not edges). */
export function importEdges(files = sourceFiles()): Edge[] {
  const edges: Edge[] = [];
  for (const from of files) {
    const info = ts.preProcessFile(fs.readFileSync(path.join(ROOT, from), 'utf8'), true, true);
    for (const { fileName: spec } of info.importedFiles) {
      if (!spec.startsWith('.')) continue;
      const to = resolve(from, spec);
      if (to === null) throw new Error(`${from}: import '${spec}' names no file`);
      if (to.startsWith('src/')) edges.push({ from, to, spec });
    }
  }
  return edges;
}

/**
 * The import cycles: each strongly connected component with more than one file (or a file
 * that imports itself), as its files in a readable order.
 */
export function cycles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  // Tarjan's algorithm; the graph is small enough for recursion.
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (next.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of [...new Set(edges.flatMap((e) => [e.from, e.to]))].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** A function-like node and its length in lines. */
export interface FunctionSize {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/**
 * Every function, method, constructor, accessor and function expression of `file` with its
 * length in lines (first to last line of the node, nested functions included in their parent).
 */
export function functionSizes(file: string): FunctionSize[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: FunctionSize[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ file, name: nameOf(node), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (
    named.name &&
    (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))
  )
    return named.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  let parent = node.parent;
  // `inspect: wrap(async () => …)`: name it after the property or variable the call is assigned to.
  while (parent && ts.isCallExpression(parent)) parent = parent.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}

/** Number of lines of a file (a final newline does not start a line). */
export function lineCount(file: string): number {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}
