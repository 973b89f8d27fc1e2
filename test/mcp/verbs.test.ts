/**
 * docs/verbs.md, the table of one operation's names on the three surfaces, says what exists:
 * every MCP tool and every CLI command is in it (or among the surfaces it leaves out), every
 * name it gives exists (a manager method on a real manager), and no row is left marked as a
 * mismatch (each difference that stays says why). A rename that forgets the table fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_NAMES, hasPath } from '../../src/cli/command-table.js';
import { Formats } from '../../src/manager/index.js';
import { ROOT } from '../cli/helpers.js';
import { connect } from './helpers.js';
import type { Harness } from './helpers.js';

const doc = fs.readFileSync(path.join(ROOT, 'docs', 'verbs.md'), 'utf8');
let h: Harness | null = null;
afterAll(async () => h?.close());

/** The table rows (operation, manager, CLI, MCP, why), header and rule lines left out. */
const rows: string[][] = doc
  .split('\n')
  .filter((l) => l.startsWith('| ') && !l.startsWith('| operation |'))
  .map((l) =>
    l
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim()),
  );
const code = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
/** The names of a cell, its parentheses (arguments, notes) left out. */
const names = (cell: string): string[] => code(cell.replace(/\([^()]*\)/g, ''));

describe('docs/verbs.md', () => {
  it('has rows of five cells, and none marked ≠: a difference that stays says why', () => {
    expect(rows.length).toBeGreaterThan(40);
    for (const r of rows) expect(r, r.join(' | ')).toHaveLength(5);
    expect(doc).not.toContain('≠');
  });

  it('names every MCP tool there is, and only those', async () => {
    h ??= await connect();
    const tools = (await h.client.listTools()).tools.map((t) => t.name);
    const named = new Set(rows.flatMap((r) => names(r[3]!).filter((w) => /^[a-z]+(_[a-z]+)*$/.test(w))));
    for (const n of named) expect(tools, `verbs.md names tool ${n}`).toContain(n);
    for (const t of tools) expect(named.has(t), `verbs.md lacks tool ${t}`).toBe(true);
  });

  it('names CLI commands that exist, and every command (or says it is left out)', () => {
    const named = new Set<string>();
    for (const r of rows) {
      // `phase fail` / `skip`: a lone word after a command is that command's subcommand.
      let top = '';
      for (const [word, sub] of names(r[2]!).map((c) => c.split(' '))) {
        if (COMMAND_NAMES.includes(word!)) top = word!;
        else expect(hasPath(`${top} ${word}`), `verbs.md names command ${word} (${r[0]})`).toBe(true);
        named.add(top);
        // `file created|modified|deleted`: subcommands; `resume --apply`, `inspect PATH`: not.
        for (const s of /^[a-z]+(\\?\|[a-z]+)*$/.test(sub ?? '') ? sub!.replace(/\\/g, '').split('|') : [])
          expect(hasPath(`${word} ${s}`), `verbs.md names command ${word} ${s} (${r[0]})`).toBe(true);
      }
    }
    const leftOut = /Surfaces that are not operations on a session \(([^)]*)\)/.exec(doc.replace(/\n/g, ' '));
    expect(leftOut).not.toBeNull();
    const left = new Set(code(leftOut![1]!).map((c) => c.split(' ')[0]!));
    for (const c of COMMAND_NAMES) expect(named.has(c) || left.has(c), `verbs.md lacks command ${c}`).toBe(true);
  });

  it('names manager methods a manager has (and Formats.inspect, which needs no store)', async () => {
    h ??= await connect();
    const roots: Record<string, unknown> = { m: h.manager, Formats };
    const paths = rows.flatMap((r) =>
      code(r[1]!).flatMap((c) => {
        const m = /^(m|Formats)\.([A-Za-z.]+)/.exec(c);
        return m ? [[m[1]!, ...m[2]!.split('.')]] : [];
      }),
    );
    expect(paths.length).toBeGreaterThan(40);
    for (const [root, ...keys] of paths) {
      let at: unknown = roots[root!];
      for (const k of keys) at = (at as Record<string, unknown> | undefined)?.[k];
      expect(typeof at, `${[root, ...keys].join('.')} in verbs.md`).toBe('function');
    }
  });
});
