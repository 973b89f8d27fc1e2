/**
 * Issue 27, "handing sessions back": what an export writes into a toolkit's folder keeps what
 * the toolkit wrote. A non-ASCII session id names its own file; bytes the export copies keep
 * their BOM and CRLF; Go Team's save times stay when nothing changed (so a re-import keeps
 * step and finding times); BMAD's YAML keeps its comments and quoting (PyYAML loads its
 * times as strings); a damaged Go Team checkpoint is not handed back as a good one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/domain/state.js';
import { bmadAdapter } from '../../src/formats/bmad/index.js';
import { ccwAdapter } from '../../src/formats/ccw/index.js';
import { exportInput, runExport } from '../../src/formats/export.js';
import { goTeamAdapter } from '../../src/formats/go-team/index.js';
import { batonIdFor, importedState } from '../../src/formats/import.js';
import { maestroAdapter } from '../../src/formats/maestro/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { FormatAdapter, ForeignSession } from '../../src/formats/types.js';
import { yamlModule } from '../../src/formats/yaml.js';
import { cleanTemps, tempDir } from './bmit-helpers.js';

afterEach(cleanTemps);

const FIX = path.join(path.dirname(new URL(import.meta.url).pathname), '../fixtures/formats');
const CTX = { importedAt: '2026-06-01T08:00:00.000Z', root: '/src' };
const LATER = new Date('2026-07-01T12:00:00.000Z');
const GT = '.claude/agents/microai/teams/go-team/checkpoints';
/** The Go Team fixtures' clock (their heartbeats are fresh then). */
const GT_NOW = new Date('2025-12-28T22:00:00Z');

async function copy(format: string, name: string): Promise<string> {
  const d = await tempDir(`hb-${format}`);
  fs.cpSync(path.join(FIX, format, name), d, { recursive: true });
  return d;
}

async function sessionsIn(a: FormatAdapter, dir: string, now = LATER): Promise<ForeignSession[]> {
  return (await a.inspect(await SafeDir.open(dir), now)).sessions;
}

async function importOne(
  a: FormatAdapter,
  dir: string,
  id?: string,
  now = LATER,
): Promise<{ s: ForeignSession; state: SessionState }> {
  const all = await sessionsIn(a, dir, now);
  const s = id ? all.find((x) => x.id === id)! : all[0]!;
  return { s, state: importedState(s, CTX, batonIdFor(s.id)) };
}

async function exportTo(a: FormatAdapter, state: SessionState, out: string, now = LATER) {
  return runExport(a, exportInput(state, a.name, now), await SafeDir.open(out, process.cwd(), { create: true }));
}

function rewrite(file: string, f: (t: string) => string): void {
  fs.writeFileSync(file, f(fs.readFileSync(file, 'utf8')));
}

describe('a session id with a non-ASCII letter', () => {
  it('maestro: exports into the folder it came from (no ACTIVE_EXISTS), keeping its id, nothing renamed', async () => {
    const d = await copy('maestro', 'mid-run-yaml');
    const file = path.join(d, '.gemini/state/active-session.md');
    rewrite(file, (t) => t.replace('session_id: "2026-03-01-auth-service"', 'session_id: "sessão-ação-1"'));
    const { state } = await importOne(maestroAdapter, d);
    expect(state.id).toBe('sessao-acao-1');
    const r = await exportTo(maestroAdapter, state, d);
    expect(r.problems).toEqual([]);
    expect(r.written).toEqual(['.gemini/state/active-session.md']);
    expect(fs.readFileSync(file, 'utf8')).toContain('session_id: "sessão-ação-1"');
    expect((await sessionsIn(maestroAdapter, d)).map((s) => s.id)).toEqual(['sessão-ação-1']);
  });

  it('maestro: an archived one is written as state/archive/<its own id>.md', async () => {
    const d = await copy('maestro', 'mid-run-yaml');
    rewrite(path.join(d, '.gemini/state/active-session.md'), (t) =>
      t.replace('session_id: "2026-03-01-auth-service"', 'session_id: "größe-1"'),
    );
    const { state } = await importOne(maestroAdapter, d);
    const out = await tempDir('hb-out');
    const r = await exportTo(maestroAdapter, { ...state, archived: true }, out);
    expect(r.problems).toEqual([]);
    expect(r.written).toContain('state/archive/größe-1.md');
  });

  it('bmad: a fresh export writes sessions/<its own id>.yaml and the pointer names it, no UNSAFE_PATH', async () => {
    const d = await copy('bmad', 'active');
    const S = path.join(d, '_bmad-output/sessions');
    rewrite(path.join(S, 'SES202601-ACME-AUDIT.yaml'), (t) =>
      t.replace('"SES202601-ACME-AUDIT"', '"SES202601-AÇME-AUDIT"'),
    );
    fs.renameSync(path.join(S, 'SES202601-ACME-AUDIT.yaml'), path.join(S, 'SES202601-AÇME-AUDIT.yaml'));
    fs.writeFileSync(path.join(S, 'active-session.yaml'), 'session_id: "SES202601-AÇME-AUDIT"\n');
    const { state } = await importOne(bmadAdapter, d, 'SES202601-AÇME-AUDIT');
    const out = await tempDir('hb-out');
    const r = await exportTo(bmadAdapter, state, out);
    expect(r.problems.map((p) => p.code)).not.toContain('UNSAFE_PATH');
    expect(r.written).toContain('_bmad-output/sessions/SES202601-AÇME-AUDIT.yaml');
    // And into its own folder: the same file, replaced in place.
    const again = await exportTo(bmadAdapter, state, d);
    expect(again.written).toContain('_bmad-output/sessions/SES202601-AÇME-AUDIT.yaml');
    expect(fs.readdirSync(S).sort()).toEqual(['SES202601-AÇME-AUDIT.yaml', 'active-session.yaml', 'archive']);
  });

  it('go-team: a non-ASCII id is a folder name too (it was refused with BAD_INPUT)', async () => {
    const d = await copy('go-team', 'mid-run');
    const cp = path.join(d, GT);
    fs.renameSync(path.join(cp, 'session-a1b2c3d4'), path.join(cp, 'sessão-a1'));
    for (const f of ['sessions.json', 'sessão-a1/state.json', 'sessão-a1/manifest.json'])
      rewrite(path.join(cp, f), (t) => t.replaceAll('session-a1b2c3d4', 'sessão-a1'));
    const { state } = await importOne(goTeamAdapter, d, 'sessão-a1');
    const out = await tempDir('hb-out');
    const r = await exportTo(goTeamAdapter, state, out);
    expect(r.problems.map((p) => p.code)).not.toContain('UNSAFE_PATH');
    expect(r.written).toContain('checkpoints/sessão-a1/state.json');
  });

  it('a path-like id is still replaced, and the output names what was written', async () => {
    const d = await copy('maestro', 'mid-run-yaml');
    rewrite(path.join(d, '.gemini/state/active-session.md'), (t) =>
      t.replace('session_id: "2026-03-01-auth-service"', 'session_id: "../x"'),
    );
    const { state } = await importOne(maestroAdapter, d);
    const r = await exportTo(maestroAdapter, { ...state, archived: true }, await tempDir('hb-out'));
    const p = r.problems.find((x) => x.code === 'UNSAFE_PATH')!;
    expect(p.details).toMatchObject({ value: '../x', written: state.id });
  });
});

describe('BOM and CRLF are kept in the files an export copies', () => {
  it('go-team: checkpoints and the rollback history are written back byte for byte', async () => {
    const d = await copy('go-team', 'mid-run');
    const sd = path.join(d, GT, 'session-a1b2c3d4');
    const names = ['cp-01-init-20251228-210000.json', 'rollback-history.json'];
    for (const n of names) rewrite(path.join(sd, n), (t) => `\uFEFF${t.replace(/\n/g, '\r\n')}`);
    const { state } = await importOne(goTeamAdapter, d);
    const out = await tempDir('hb-out');
    await exportTo(goTeamAdapter, state, out);
    for (const n of names)
      expect(fs.readFileSync(path.join(out, 'checkpoints/session-a1b2c3d4', n))).toEqual(
        fs.readFileSync(path.join(sd, n)),
      );
  });

  it('ccw: the registry lines of other sessions keep their bytes, BOM and CRLF included', async () => {
    const d = await copy('ccw', 'mixed-legacy');
    const reg = path.join(d, '.workflow/session_status.jsonl');
    const other = '{"id":"WFS-other","status":"paused","description":"Other","created":"2025-09-01T08:00:00Z"}';
    rewrite(reg, (t) => `\uFEFF${other}\r\n${t.replace(/\n/g, '\r\n')}`);
    const { state } = await importOne(ccwAdapter, d, 'WFS-moved');
    await exportTo(ccwAdapter, state, d);
    const bytes = fs.readFileSync(reg, 'utf8');
    expect(bytes.startsWith(`\uFEFF${other}\r\n`)).toBe(true);
    expect(bytes.endsWith('\r\n')).toBe(true);
    expect(bytes.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('bmad: the session file edited in place keeps its BOM and CRLF', async () => {
    const d = await copy('bmad', 'active');
    const f = path.join(d, '_bmad-output/sessions/SES202601-ACME-AUDIT.yaml');
    rewrite(f, (t) => `\uFEFF${t.replace(/\n/g, '\r\n')}`);
    const { state } = await importOne(bmadAdapter, d, 'SES202601-ACME-AUDIT');
    await exportTo(bmadAdapter, state, d);
    const text = fs.readFileSync(f, 'utf8');
    expect(text.startsWith('\uFEFF# SES202601-ACME-AUDIT.yaml\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
  });
});

describe('go-team: times', () => {
  it('nothing changed: saved_at, updated_at stay; a re-import keeps step and finding times', async () => {
    const d = await copy('go-team', 'mid-run');
    const sd = path.join(d, GT, 'session-a1b2c3d4');
    rewrite(path.join(sd, 'state.json'), (t) => {
      const j = JSON.parse(t);
      j.outputs = { ...j.outputs, review_comments: [{ comment: 'Handle token expiry', severity: 'major' }] };
      return JSON.stringify(j, null, 2);
    });
    // Read within Go Team's heartbeat: the session is active, as written.
    const first = await importOne(goTeamAdapter, d, undefined, GT_NOW);
    expect(first.state.status).toBe('active');
    const out = await tempDir('hb-out');
    await exportTo(goTeamAdapter, first.state, out);
    const read = (f: string, dir: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    const live = read('checkpoints/session-a1b2c3d4/state.json', out);
    expect(live.saved_at).toBe(read('state.json', sd).saved_at);
    expect(read('checkpoints/session-a1b2c3d4/manifest.json', out).updated_at).toBe(
      read('manifest.json', sd).updated_at,
    );
    expect(read('checkpoints/sessions.json', out).sessions[0].updated_at).toBe(
      read('sessions.json', path.join(d, GT)).sessions[0].updated_at,
    );
    const back = await importOne(goTeamAdapter, out, undefined, GT_NOW);
    const times = (s: SessionState) => ({
      phases: s.phases.map((p) => [p.id, p.status, p.startedAt, p.completedAt]),
      findings: s.findings.map((f) => [f.text, f.time]),
    });
    expect(times(back.state)).toEqual(times(first.state));
    expect(JSON.stringify(times(back.state))).not.toContain(LATER.toISOString());
  });

  it('a change in baton is a save: saved_at and updated_at move', async () => {
    const d = await copy('go-team', 'mid-run');
    const { state } = await importOne(goTeamAdapter, d);
    const out = await tempDir('hb-out');
    await exportTo(goTeamAdapter, { ...state, title: 'Renamed in baton' }, out);
    const live = JSON.parse(fs.readFileSync(path.join(out, 'checkpoints/session-a1b2c3d4/state.json'), 'utf8'));
    expect(live.saved_at).toBe(LATER.toISOString());
  });
});

describe('go-team: a damaged checkpoint is not handed back as a good one', () => {
  it('dropped, marked invalid in the manifest, recovery.json moved to the last valid checkpoint, said in the output', async () => {
    const d = await copy('go-team', 'corrupt-checkpoint');
    // cp-04, the one recovery.json recommends, is torn (half written).
    rewrite(path.join(d, 'checkpoints/session-c0aa0b70/cp-04-implementation-20251228-211500.json'), (t) =>
      t.slice(0, 200),
    );
    const { state } = await importOne(goTeamAdapter, d);
    const out = await tempDir('hb-out');
    const r = await exportTo(goTeamAdapter, state, out);
    const sd = 'checkpoints/session-c0aa0b70';
    const bad = 'cp-04-implementation-20251228-211500';
    expect(r.written).not.toContain(`${sd}/${bad}.json`);
    expect(r.written).toContain(`${sd}/cp-03-architecture-20251228-211000.json`);
    const dropped = r.problems.find((p) => p.code === 'CORRUPT_CHECKPOINT')!;
    expect(dropped.message).toMatch(/does not parse as JSON: it was dropped/);
    expect(dropped.details).toMatchObject({
      checkpoint: bad,
      dropped: true,
      instead: 'cp-03-architecture-20251228-211000',
    });
    const read = (f: string) => JSON.parse(fs.readFileSync(path.join(out, sd, f), 'utf8'));
    expect(read('manifest.json').checkpoints.find((c: { id: string }) => c.id === bad).valid).toBe(false);
    expect(read('manifest.json').current_checkpoint).toBe('cp-03-architecture-20251228-211000');
    const rec = read('recovery.json');
    expect(rec.recovery_options.map((o: { target: string }) => o.target)).toEqual([
      'cp-03-architecture-20251228-211000',
    ]);
    expect(rec.recommended).toBe('checkpoint');
    // Read back by Go Team's rules, recovery recommends the valid checkpoint.
    const back = (await sessionsIn(goTeamAdapter, out)).find((s) => s.id === 'session-c0aa0b70')!;
    const cpOpt = back.resume.options.find((o) => o.kind === 'checkpoint');
    expect(cpOpt?.target).toBe('cp-03-architecture-20251228-211000');
  });
});

describe('bmad: comments and quoting survive the export', () => {
  function pyLoad(file: string): Record<string, unknown> {
    try {
      execFileSync('python3', ['-c', 'import yaml'], { stdio: 'ignore' });
    } catch {
      // No PyYAML here: the yaml library's YAML 1.1 mode reads timestamps as PyYAML does.
      return yamlModule().parse(fs.readFileSync(file, 'utf8'), { version: '1.1' }) as Record<string, unknown>;
    }
    const py =
      'import json,sys,yaml\nd=yaml.safe_load(open(sys.argv[1],encoding="utf-8-sig"))\nprint(json.dumps(d,default=lambda o:"<"+type(o).__name__+">"))';
    return JSON.parse(execFileSync('python3', ['-c', py, file], { encoding: 'utf8' }));
  }

  it('an imported session: comments kept, times stay quoted strings for a YAML 1.1 reader, changed values too', async () => {
    const d = await copy('bmad', 'active');
    const src = path.join(d, '_bmad-output/sessions/SES202601-ACME-AUDIT.yaml');
    const { state } = await importOne(bmadAdapter, d, 'SES202601-ACME-AUDIT');
    const out = await tempDir('hb-out');
    // A change (a note), so last_updated is rewritten with the export time.
    const changed = {
      ...state,
      notes: [...state.notes, { ...state.notes[0]!, id: 'n-x', text: 'yes', time: LATER.toISOString() }],
    };
    await exportTo(bmadAdapter, changed as SessionState, out);
    const f = path.join(out, '_bmad-output/sessions/SES202601-ACME-AUDIT.yaml');
    const text = fs.readFileSync(f, 'utf8');
    expect(text).toContain('# SES202601-ACME-AUDIT.yaml');
    expect(text).toContain('# active, paused, closed');
    expect(text).toContain('created: "2026-01-15T10:30:00Z"');
    expect(text).toContain(`last_updated: "${LATER.toISOString().replace('.000', '')}"`);
    const doc = pyLoad(f);
    expect(doc.created).toBe('2026-01-15T10:30:00Z');
    expect(doc.last_updated).toBe('2026-07-01T12:00:00Z');
    const agents = doc.agents_spawned as Array<Record<string, unknown>>;
    expect(agents.every((a) => typeof a.started === 'string')).toBe(true);
    expect(JSON.stringify(doc)).not.toContain('<datetime>');
    expect((doc.notes as unknown[]).at(-1)).toEqual(expect.anything());
    expect(JSON.stringify(doc.notes)).toContain('"yes"');
    // Unchanged lines stay as they were.
    const lines = new Set(fs.readFileSync(src, 'utf8').split('\n'));
    const kept = text.split('\n').filter((l) => lines.has(l)).length;
    expect(kept / text.split('\n').length).toBeGreaterThan(0.8);
  });
});
