/**
 * The CLI of the foreign layouts (inspect, import, export, mirror, start --mirror), run
 * in-process through the real `run()` with the test-only toy adapter added to the registry,
 * so the commands, their output, exit codes and the once-per-command mirror rewrite are
 * checked independently of the real adapters.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/exit.js';
import { run } from '../../src/cli/main.js';
import { ADAPTERS } from '../../src/formats/registry.js';
import type { FormatAdapter } from '../../src/formats/types.js';
import { put, snapshotTree, tmpDir, toyAdapter, toyDoc } from '../formats/core-helpers.js';

const FIXTURES = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../fixtures/formats');

const toy: FormatAdapter = toyAdapter();
beforeAll(() => {
  ADAPTERS.push(toy);
});
afterAll(() => {
  ADAPTERS.splice(ADAPTERS.indexOf(toy), 1);
});

const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

async function baton(cwd: string, ...argv: string[]): Promise<Out> {
  let stdout = '';
  let stderr = '';
  const code = await run({
    argv,
    env: { NO_COLOR: '1' },
    cwd,
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    isTTY: false,
    now: () => new Date(),
  });
  return { code, stdout, stderr };
}

async function ok(cwd: string, ...argv: string[]): Promise<string> {
  const r = await baton(cwd, ...argv);
  if (r.code !== 0 || r.stderr !== '') throw new Error(`baton ${argv.join(' ')} → ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function ws(): string {
  const d = tmpDir('baton-fmtcli-');
  made.push(d);
  return d;
}

describe('baton inspect', () => {
  it('reports each session for people: status, units, position, resume, errors, tokens, problems; exit 0 without errors', async () => {
    const w = ws();
    put(w, 'src/toy/T-1.json', JSON.stringify(toyDoc()));
    const before = snapshotTree(path.join(w, 'src'));
    const r = await baton(w, 'inspect', 'src');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = r.stdout;
    expect(out).toMatch(/^toy layout in .*src \(detected; scores: toy 1\.00[,)]/);
    expect(out).toContain('Session T-1  active');
    expect(out).toMatch(/✓ plan\s+completed/);
    expect(out).toMatch(/▶ build\s+in_progress.*\(sub-step compile, retries 1, 1 error\(s\)\)/);
    expect(out).toMatch(/○ test\s+pending/);
    expect(out).toContain('Position: unit build, sub-step compile');
    expect(out).toContain('Unresolved errors (1):');
    expect(out).toContain('build runtime: boom');
    expect(out).toContain('Tokens: 1,000 in / 200 out / 50 cached; per-agent breakdown DISAGREES');
    expect(out).toContain('0 error(s), 0 warning(s), 0 note(s)');
    expect(snapshotTree(path.join(w, 'src'))).toEqual(before);
    // inspect needs no baton store.
    expect(fs.existsSync(path.join(w, '.baton'))).toBe(false);
  });

  it('--json gives the facts without the source documents (unless --documents); an error-severity problem exits 10', async () => {
    const w = ws();
    put(w, 'src/toy/T-1.json', JSON.stringify(toyDoc()));
    put(w, 'src/toy/bad.json', '{');
    const r = await baton(w, 'inspect', '--format', 'toy', 'src', '--json');
    expect(r.code).toBe(EXIT_CODES.CORRUPT);
    const j = JSON.parse(r.stdout);
    expect(j.format).toBe('toy');
    expect(j.detection).toBeNull();
    expect(j.sessions[0].id).toBe('T-1');
    expect(j.sessions[0].units.map((u: { status: string }) => u.status)).toEqual([
      'completed',
      'in_progress',
      'pending',
    ]);
    expect(j.sessions[0].documents).toBeUndefined();
    expect(j.problems.map((p: { code: string; path: string }) => [p.code, p.path])).toEqual([
      ['CORRUPT_FILE', 'toy/bad.json'],
    ]);
    const d = JSON.parse((await baton(w, 'inspect', '--format', 'toy', 'src', '--json', '--documents')).stdout);
    expect(d.sessions[0].documents['toy/T-1.json'].extra).toEqual({ keep: 'me' });
    const human = await baton(w, 'inspect', 'src');
    expect(human.code).toBe(EXIT_CODES.CORRUPT);
    expect(human.stdout).toMatch(/error CORRUPT_FILE toy\/bad\.json: toy\/bad\.json does not parse as JSON/);
    expect(human.stdout).toContain('1 error(s), 0 warning(s), 0 note(s)');
  });

  it('an unknown folder is an UNKNOWN_FORMAT problem (exit 10); an unknown --format or a missing path is BAD_INPUT / NOT_FOUND', async () => {
    const w = ws();
    fs.mkdirSync(path.join(w, 'empty'));
    const r = await baton(w, 'inspect', 'empty');
    expect(r.code).toBe(EXIT_CODES.CORRUPT);
    expect(r.stdout).toMatch(/No known layout in/);
    expect(r.stdout).toMatch(/UNKNOWN_FORMAT: Nothing in .* looks like a known session layout/);
    expect(r.stdout).toMatch(/hint: Name the layout with --format/);
    const bad = await baton(w, 'inspect', '--format', 'nope', 'empty');
    expect(bad.code).toBe(EXIT_CODES.BAD_INPUT);
    expect(bad.stderr).toMatch(/^error\[BAD_INPUT\]: Unknown session layout "nope"/);
    const missing = await baton(w, 'inspect', 'nowhere');
    expect(missing.code).toBe(EXIT_CODES.NOT_FOUND);
  });
});

describe('baton import / export', () => {
  it('imports, says unchanged the second time, updates after a change, and leaves the folder untouched', async () => {
    const w = ws();
    put(w, 'src/toy/T-1.json', JSON.stringify(toyDoc()));
    const before = snapshotTree(path.join(w, 'src'));
    const first = await ok(w, 'import', 'src');
    expect(first).toMatch(/Imported from the toy layout in .*src:\n {2}created {3}T-1 {2}revision \d+/);
    const again = JSON.parse(await ok(w, 'import', 'src', '--json'));
    expect(again.sessions.map((s: { action: string }) => s.action)).toEqual(['unchanged']);
    expect(snapshotTree(path.join(w, 'src'))).toEqual(before);
    put(w, 'src/toy/T-1.json', JSON.stringify(toyDoc({ notes: ['first note', 'new'] })));
    const upd = JSON.parse(await ok(w, 'import', 'src', '--json'));
    expect(upd.sessions.map((s: { action: string }) => s.action)).toEqual(['updated']);
    const status = JSON.parse(await ok(w, 'status', '--session', 'T-1', '--json'));
    expect(status.notes.map((n: { text: string }) => n.text)).toEqual(['first note', 'new']);
  });

  it('exits 10 when it did not import the folder: nothing found under --format, or an error-severity problem (report still on stdout)', async () => {
    const w = ws();
    fs.mkdirSync(path.join(w, 'empty/toy'), { recursive: true });
    const none = await baton(w, 'import', '--format', 'toy', 'empty');
    expect(none.code).toBe(EXIT_CODES.CORRUPT);
    expect(none.stdout).toContain('no session found');
    expect(none.stdout).toMatch(/error UNKNOWN_FORMAT: No toy session was found in .*empty/);
    const j = JSON.parse((await baton(w, 'import', '--format', 'toy', 'empty', '--json')).stdout);
    expect(j.problems.map((p: { code: string }) => p.code)).toEqual(['UNKNOWN_FORMAT']);
    put(w, 'src/toy/T-1.json', JSON.stringify(toyDoc()));
    put(w, 'src/toy/bad.json', '{');
    const damaged = await baton(w, 'import', 'src');
    expect(damaged.code).toBe(EXIT_CODES.CORRUPT);
    expect(damaged.stdout).toMatch(/created {3}T-1/);
    expect(damaged.stdout).toMatch(/error CORRUPT_FILE toy\/bad\.json/);
    // The same folder as inspect sees it.
    expect((await baton(w, 'inspect', 'src')).code).toBe(EXIT_CODES.CORRUPT);
    fs.rmSync(path.join(w, 'src/toy/bad.json'));
    expect((await baton(w, 'import', 'src')).code).toBe(0);
  });

  it('refuses an id taken by a baton session of its own (EXISTS, exit 13), and --id-prefix imports beside it', async () => {
    const w = ws();
    put(w, 'src/toy/T-1.json', JSON.stringify(toyDoc()));
    await ok(w, 'start', 'mine', '--id', 'T-1');
    const r = await baton(w, 'import', 'src');
    expect(r.code).toBe(EXIT_CODES.EXISTS);
    expect(r.stderr).toMatch(/^error\[EXISTS\]: .*T-1 \(not imported\)/);
    expect(r.stderr).toMatch(/hint: .*--id-prefix/);
    const j = JSON.parse(await ok(w, 'import', 'src', '--id-prefix', 'toy-', '--json'));
    expect(j.sessions.map((s: { id: string }) => s.id)).toEqual(['toy-T-1']);
  });

  it('refuses a session of the same name from another folder (EXISTS, exit 13, hint --id-prefix / --moved)', async () => {
    const w = ws();
    put(w, 'a/toy/T-1.json', JSON.stringify(toyDoc({ notes: ['from A'] })));
    put(w, 'b/toy/T-1.json', JSON.stringify(toyDoc({ notes: ['from B'] })));
    await ok(w, 'import', 'a');
    const r = await baton(w, 'import', 'b');
    expect(r.code).toBe(EXIT_CODES.EXISTS);
    expect(r.stderr).toMatch(/^error\[EXISTS\]: .*T-1 \(imported from toy session T-1 in .*a, another folder\)/);
    expect(r.stderr).toMatch(/hint: .*--id-prefix.*--moved/);
    const status = JSON.parse(await ok(w, 'status', '--session', 'T-1', '--json'));
    expect(status.notes.map((n: { text: string }) => n.text)).toEqual(['from A']);
    const moved = JSON.parse(await ok(w, 'import', 'b', '--moved', '--json'));
    expect(moved.sessions.map((s: { action: string }) => s.action)).toEqual(['updated']);
  });

  it('exports a session (the active one or --session) and reports the written paths; --out a file is BAD_INPUT', async () => {
    const w = ws();
    put(w, 'src/toy/T-1.json', JSON.stringify(toyDoc()));
    await ok(w, 'import', 'src');
    const r = await ok(w, 'export', '--format', 'toy', '--session', 'T-1', '--out', 'out');
    expect(r).toContain(`Exported T-1 as toy session T-1 to ${path.join(w, 'out')}:\n  wrote   toy/T-1.json`);
    const again = JSON.parse(await ok(w, 'export', '--format', 'toy', '--session', 'T-1', '--out', 'out', '--json'));
    expect(again).toMatchObject({ id: 'T-1', written: ['toy/T-1.json'], backups: ['toy/T-1.json.bak'], removed: [] });
    put(w, 'file', 'x');
    const bad = await baton(w, 'export', '--format', 'toy', '--session', 'T-1', '--out', 'file');
    expect(bad.code).toBe(EXIT_CODES.BAD_INPUT);
    expect(bad.stderr).toMatch(/is a file, not a folder/);
    const missing = await baton(w, 'export', '--session', 'T-1', '--out', 'out');
    expect(missing.code).toBe(EXIT_CODES.BAD_INPUT);
  });
});

describe('baton export: what the writer had to change, and the layout named', () => {
  it('an imported id that would be a path is written as the baton id, with an UNSAFE_PATH warning on stderr', async () => {
    const w = ws();
    fs.cpSync(path.join(FIXTURES, 'bmad', 'active'), path.join(w, 'src'), { recursive: true });
    const live = path.join(w, 'src/_bmad-output/sessions/SES202601-ACME-AUDIT.yaml');
    fs.writeFileSync(
      live,
      fs.readFileSync(live, 'utf8').replace('session_id: "SES202601-ACME-AUDIT"', 'session_id: "../../x"'),
    );
    await baton(w, 'import', '--format', 'bmad', 'src');
    const id = (JSON.parse(await ok(w, 'list', '--json')) as Array<{ id: string }>)
      .map((r) => r.id)
      .find((x) => x.includes('x'))!;
    const r = await baton(w, 'export', '--format', 'bmad', '--session', id, '--out', 'out');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: UNSAFE_PATH: .*\.\.\/\.\.\/x/);
    expect(r.stdout).toContain(`_bmad-output/sessions/${id}.yaml`);
    expect(fs.existsSync(path.join(w, 'x.yaml'))).toBe(false);
    // A mirror writes the same way, and says so at each rewrite.
    const mirrored = await baton(w, 'mirror', 'bmad', '--session', id, '--out', 'mirror');
    expect(mirrored.code).toBe(0);
    expect(mirrored.stderr).toMatch(/warning: mirror of .*: UNSAFE_PATH: /);
    expect(fs.existsSync(path.join(w, `mirror/_bmad-output/sessions/${id}.yaml`))).toBe(true);
  });

  it('--format auto is refused for export and mirror without suggesting auto', async () => {
    const w = ws();
    put(w, 'src/toy/T-1.json', JSON.stringify(toyDoc()));
    await ok(w, 'import', 'src');
    for (const argv of [
      ['export', '--format', 'auto', '--session', 'T-1', '--out', 'out'],
      ['mirror', 'auto', '--session', 'T-1', '--out', 'out'],
    ]) {
      const r = await baton(w, ...argv);
      expect(r.code, argv.join(' ')).toBe(EXIT_CODES.BAD_INPUT);
      expect(r.stderr, argv.join(' ')).not.toMatch(/or auto/);
    }
  });
});

describe('baton mirror', () => {
  it('rewrites the mirrored file after every CLI change, once per command, until --off', async () => {
    const w = ws();
    await ok(w, 'start', 'work', '--id', 's1', '--phases', 'one,two');
    const file = path.join(w, 'm', 'toy', 's1.json');
    const set = await ok(w, 'mirror', 'toy', '--out', 'm');
    expect(set).toBe(`Mirroring s1 as toy in ${path.join(w, 'm')}\n`);
    const read = () => JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(read().units.map((u: { status: string }) => u.status)).toEqual(['pending', 'pending']);
    await ok(w, 'phase', 'start', 'one');
    expect(read().units[0].status).toBe('in_progress');
    await ok(w, 'tokens', 'add', '--agent', 'a', '--input', '7');
    expect(read().tokens.input).toBe(7);
    await ok(w, 'note', 'add', 'hello');
    expect(read().notes).toEqual(['hello']);
    // One rewrite per command: the previous content is the .bak the toy plan keeps.
    await ok(w, 'phase', 'complete', 'one');
    expect(JSON.parse(fs.readFileSync(`${file}.bak`, 'utf8')).notes).toEqual(['hello']);
    expect(read().units[0].status).toBe('completed');
    const shown = JSON.parse(await ok(w, 'mirror', '--json'));
    expect(shown).toEqual({ id: 's1', mirror: { format: 'toy', out: path.join(w, 'm') }, error: null });
    expect(await ok(w, 'mirror', '--off')).toBe('Stopped mirroring s1\n');
    await ok(w, 'phase', 'start', 'two');
    expect(read().units[1].status).toBe('pending');
  });

  it('never overwrites a mirrored file someone else changed: warns with the way out, until import takes the change in or --force', async () => {
    const w = ws();
    await ok(w, 'start', 'work', '--id', 's1', '--phases', 'one,two');
    await ok(w, 'mirror', 'toy', '--out', 'm');
    await ok(w, 'phase', 'start', 'one');
    const file = path.join(w, 'm', 'toy', 's1.json');
    // The toolkit completes phase two in its own file.
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    doc.units[1].status = 'completed';
    const theirs = `${JSON.stringify(doc, null, 2)}\n`;
    fs.writeFileSync(file, theirs);
    const r = await baton(w, 'note', 'add', 'hello');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('note-1\n');
    expect(r.stderr).toContain(
      `warning: mirror of s1 (toy in ${path.join(w, 'm')}) not updated: ${file} changed since baton last wrote it`,
    );
    expect(r.stderr).toContain(
      `hint: Take the changes into baton with \`baton import --format toy ${path.join(w, 'm')}\``,
    );
    expect(r.stderr).toContain('--force');
    expect(fs.readFileSync(file, 'utf8')).toBe(theirs);
    // Every later change warns again and still keeps the toolkit's write.
    expect((await baton(w, 'note', 'add', 'again')).stderr).toMatch(/not updated: .*changed since baton last wrote it/);
    expect(fs.readFileSync(file, 'utf8')).toBe(theirs);
    const shown = JSON.parse(await ok(w, 'mirror', '--json'));
    expect(shown.error).toMatchObject({ code: 'CONFLICT', hint: expect.stringContaining('baton import --format toy') });
    // Import takes the toolkit's change in; the mirror resumes at once with baton's state.
    const imp = await baton(w, 'import', '--format', 'toy', 'm', '--json');
    expect(imp.stderr).toBe('');
    expect(imp.code).toBe(0);
    expect(JSON.parse(imp.stdout).sessions.map((x: { id: string; action: string }) => [x.id, x.action])).toEqual([
      ['s1', 'updated'],
    ]);
    const status = JSON.parse(await ok(w, 'status', '--session', 's1', '--json'));
    expect(status.phases.map((p: { status: string }) => p.status)).toEqual(['in_progress', 'completed']);
    const after = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(after.units.map((u: { status: string }) => u.status)).toEqual(['in_progress', 'completed']);
    expect(after.notes).toEqual(['hello', 'again']);
    expect(JSON.parse(await ok(w, 'mirror', '--json')).error).toBeNull();
    await ok(w, 'note', 'add', 'third');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).notes).toEqual(['hello', 'again', 'third']);
    // --force overwrites a changed file on purpose.
    fs.writeFileSync(file, '{"edited": true}\n');
    expect((await baton(w, 'note', 'add', 'fourth')).stderr).toMatch(/changed since baton last wrote it/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"edited": true}\n');
    await ok(w, 'mirror', 'toy', '--out', 'm', '--force');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).notes).toEqual(['hello', 'again', 'third', 'fourth']);
    expect(JSON.parse(await ok(w, 'mirror', '--json')).error).toBeNull();
  });

  it('start --mirror --mirror-out mirrors from the first event', async () => {
    const w = ws();
    await ok(w, 'start', 'work', '--id', 's1', '--phases', 'one', '--mirror', 'toy', '--mirror-out', 'm');
    expect(JSON.parse(fs.readFileSync(path.join(w, 'm/toy/s1.json'), 'utf8')).title).toBe('work');
    const half = await baton(w, 'start', 'other', '--id', 's2', '--mirror', 'toy', '--switch');
    expect(half.code).toBe(EXIT_CODES.BAD_INPUT);
  });

  it('a mirror that cannot be written warns on stderr, records the failure, and the change still succeeds (exit 0)', async () => {
    const w = ws();
    await ok(w, 'start', 'work', '--id', 's1', '--phases', 'one');
    await ok(w, 'mirror', 'toy', '--out', 'm');
    fs.rmSync(path.join(w, 'm'), { recursive: true });
    put(w, 'm', 'now a file');
    const r = await baton(w, 'phase', 'start', 'one');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Started phase one\n');
    expect(r.stderr).toMatch(/^warning: mirror of s1 \(toy in .*m\) not updated: .*is a file/);
    const status = JSON.parse(await ok(w, 'status', '--json'));
    expect(status.phases[0].status).toBe('in_progress');
    const shown = await ok(w, 'mirror');
    expect(shown).toMatch(/Last rewrite failed at .*is a file/);
    const bad = await baton(w, 'mirror', 'toy');
    expect(bad.code).toBe(EXIT_CODES.BAD_INPUT);
    expect(bad.stderr).toMatch(/needs --out DIR/);
  });
});
