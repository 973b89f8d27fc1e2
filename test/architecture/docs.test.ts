/**
 * The documentation stays inside the repository and ships with the package: `--help` and error
 * hints point at `docs/…`, so those files must exist and be in the published files, and no doc
 * or source comment may send a reader to a file outside the repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from './graph.js';

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return markdownFiles(rel);
    return e.name.endsWith('.md') ? [rel] : [];
  });
}

const DOCS = ['README.md', ...markdownFiles('docs')];
/** Design notes that live next to the repository, never in it: a pointer to them is a dead link for a user. */
const OUTSIDE = /\.\.\/shared\/|\b(DESIGN|FORMATS|STYLE|AGENT-HOOKS)\.md\b/;

describe('documentation', () => {
  it('ships docs/ in the package', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('docs');
    expect(DOCS).toContain('docs/architecture.md');
  });

  it('no doc or source file points outside the repository', () => {
    const found: string[] = [];
    for (const f of [...DOCS, ...sourceFiles()]) {
      fs.readFileSync(path.join(ROOT, f), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (OUTSIDE.test(line)) found.push(`${f}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found, `points outside the repository:\n${found.join('\n')}`).toEqual([]);
  });

  it('every relative link of the docs names a file of the repository', () => {
    const broken: string[] = [];
    for (const f of DOCS) {
      for (const [, target] of fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const abs = path.resolve(ROOT, path.dirname(f), target!);
        if (!abs.startsWith(ROOT + path.sep) || !fs.existsSync(abs)) broken.push(`${f}: link to ${target}`);
      }
    }
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('every repository path the map pages name exists', () => {
    // The architecture map and the design decisions name files to say where a behaviour lives;
    // a file moved or split without them is a false statement to the next reader.
    const files = (dir: string): string[] =>
      fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
        if (e.name === 'node_modules' || e.name.startsWith('.')) return [];
        const rel = `${dir}/${e.name}`;
        return e.isDirectory() ? [rel, ...files(rel)] : [rel];
      });
    const known = ['src', 'test', 'scripts', 'bench'].flatMap(files);
    const basenames = new Set(known.map((f) => path.basename(f)));
    const missing: string[] = [];
    for (const f of ['README.md', 'docs/architecture.md', 'docs/design-decisions.md']) {
      for (const [, code] of fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/`([^`\n]+)`/g)) {
        for (const [ref] of code!.matchAll(
          /(?:\b(?:src|test|scripts|bench)\/)?[\w./-]+\.(?:ts|tsx|cjs|mjs)\b|\b(?:src|test|scripts|bench)\/[\w./-]+\//g,
        )) {
          if (ref.includes('<') || ref.includes('*')) continue;
          const ok = ref.includes('/')
            ? /^(src|test|scripts|bench)\//.test(ref)
              ? fs.existsSync(path.join(ROOT, ref))
              : true
            : basenames.has(ref);
          if (!ok) missing.push(`${f}: ${ref}`);
        }
      }
    }
    expect(missing, `named but not in the repository:\n${missing.join('\n')}`).toEqual([]);
  });

  it('every docs/ page the code names exists', () => {
    const missing: string[] = [];
    for (const f of sourceFiles()) {
      for (const [ref] of fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/\bdocs\/[a-z-]+(\/[a-z-]+)?\.md\b/g)) {
        if (!fs.existsSync(path.join(ROOT, ref))) missing.push(`${f}: ${ref}`);
      }
    }
    expect(missing, missing.join('\n')).toEqual([]);
  });

  it("every name the docs' examples import from the package is exported by that entry", async () => {
    // A reader copies these lines first: a name the entry does not export is a SyntaxError on
    // their first run (docs/steps.md once imported SessionManager, exported as a type only).
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string }>;
    };
    const entry = (sub: string): string | null => {
      const types = pkg.exports[sub === '' ? '.' : `.${sub}`]?.types;
      return types ? types.replace('./dist/types/', 'src/').replace(/\.d\.ts$/, '.ts') : null;
    };
    const wrong: string[] = [];
    let seen = 0;
    for (const f of DOCS) {
      const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
      for (const [, typeOnly, names, sub] of text.matchAll(
        /import (type )?\{([^}]*)\} from 'baton-sessions((?:\/[a-z-]+)?)'/g,
      )) {
        const src = entry(sub!);
        if (!src) {
          wrong.push(`${f}: no package entry baton-sessions${sub}`);
          continue;
        }
        const mod = (await import(path.join(ROOT, src))) as Record<string, unknown>;
        for (const raw of names!.split(',')) {
          const name = raw.trim().split(/\s+as\s+/)[0]!;
          if (!name || typeOnly || name.startsWith('type ')) continue;
          seen++;
          if (!(name in mod)) wrong.push(`${f}: ${name} is not exported (as a value) by baton-sessions${sub}`);
        }
      }
    }
    expect(seen).toBeGreaterThan(3);
    expect(wrong, wrong.join('\n')).toEqual([]);
  });
});
