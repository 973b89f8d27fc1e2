/**
 * A file or folder baton may not read is its own problem (UNREADABLE, "check permissions"),
 * never a missing or corrupt file, and never a reason to advise a rollback or a fresh start
 * (which would throw away progress the file may still hold).
 *
 * The tests run as root, whom file modes do not stop, so each read runs in a child process
 * as `nobody` (setpriv) against a copy whose modes deny it: a real EACCES, not a stub.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { FormatProblem, InspectReport } from '../../src/formats/types.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(REPO, 'test/fixtures/formats');
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p));
const canDrop = process.getuid?.() === 0 && SETPRIV !== undefined;
if (!canDrop)
  console.warn(
    'Permission tests skipped: they read files as user nobody through setpriv, which needs root and util-linux setpriv.',
  );

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

/** A copy of a fixture case in a folder `nobody` can enter. */
function copyCase(format: string, name: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `baton-perm-${format}-`));
  temps.push(d);
  fs.chmodSync(d, 0o755);
  fs.cpSync(path.join(FIXTURES, format, name), d, { recursive: true });
  return d;
}

/** Runs `body` (TypeScript, with `SafeDir` and `adapter` in scope) as nobody; returns its JSON output. */
function asNobody(format: string, body: string): unknown {
  const dir = path.dirname(temps[0] ?? os.tmpdir());
  const script = path.join(dir, `baton-perm-${process.pid}-${Math.random().toString(36).slice(2)}.mts`);
  const exportName = {
    maestro: 'maestroAdapter',
    bmit: 'bmitAdapter',
    ccw: 'ccwAdapter',
    bmad: 'bmadAdapter',
    'go-team': 'goTeamAdapter',
  }[format]!;
  fs.writeFileSync(
    script,
    `import { SafeDir } from ${JSON.stringify(path.join(REPO, 'src/formats/safe-dir.ts'))};\n` +
      `import { ${exportName} as adapter } from ${JSON.stringify(path.join(REPO, `src/formats/${format}/index.ts`))};\n` +
      `const out = await (async () => { ${body} })();\n` +
      `process.stdout.write(JSON.stringify(out));\n`,
    { mode: 0o644 },
  );
  try {
    const stdout = execFileSync(
      SETPRIV!,
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', script],
      { cwd: REPO, encoding: 'utf8', env: { ...process.env, HOME: os.tmpdir() } },
    );
    return JSON.parse(stdout) as unknown;
  } finally {
    fs.rmSync(script, { force: true });
  }
}

function inspectAsNobody(format: string, dir: string): InspectReport {
  return asNobody(
    format,
    `return adapter.inspect(await SafeDir.open(${JSON.stringify(dir)}), new Date('2026-06-01T12:00:00Z'));`,
  ) as InspectReport;
}

const allProblems = (r: InspectReport): FormatProblem[] => [...r.problems, ...r.sessions.flatMap((s) => s.problems)];

describe.skipIf(!canDrop)('unreadable files and folders (permission denied)', () => {
  it('bmit: an unreadable state file is UNREADABLE, and resuming never advises a fresh start', () => {
    const d = copyCase('bmit', 'mid-run');
    const file = 'agent-output/contoso-web/00-session-state.json';
    fs.chmodSync(path.join(d, file), 0o000);
    const r = inspectAsNobody('bmit', d);
    const s = r.sessions[0]!;
    const ps = allProblems(r).filter((p) => p.path === file);
    expect(ps.map((p) => p.code)).toEqual(['UNREADABLE']);
    expect(ps[0]!.severity).toBe('error');
    expect(ps[0]!.hint).toMatch(/permissions/);
    expect(s.resume.action).toBe('refuse');
    expect(s.resume.recommended).toBe('live');
    expect(s.resume.options.filter((o) => o.kind === 'fresh')).toEqual([]);
    expect(s.resume.reason).toMatch(/permission/);
    expect(`${s.resume.reason} ${ps[0]!.hint}`).not.toMatch(/template \(every step pending\) and log/);
  });

  it('bmit: with a usable .bak, the state file is still UNREADABLE (not "restore the backup")', () => {
    const d = copyCase('bmit', 'corrupt-with-bak');
    const file = 'agent-output/wingtip/00-session-state.json';
    fs.writeFileSync(path.join(d, file), fs.readFileSync(path.join(d, `${file}.bak`)));
    fs.chmodSync(path.join(d, file), 0o000);
    const r = inspectAsNobody('bmit', d);
    const p = allProblems(r).find((x) => x.path === file)!;
    expect(p.code).toBe('UNREADABLE');
    expect(p.hint).toMatch(/permissions/);
    expect(p.hint).not.toMatch(/^bmit's rule/);
    expect(r.sessions[0]!.resume.recommended).toBe('live');
  });

  it('ccw: an unreadable session file is UNREADABLE; no "damaged … rebuild" advice', () => {
    const d = copyCase('ccw', 'seed-mid-run');
    const file = '.workflow/WFS-bug-fix-123/workflow-session.json';
    fs.chmodSync(path.join(d, file), 0o000);
    const r = inspectAsNobody('ccw', d);
    const p = allProblems(r).find((x) => x.path === file)!;
    expect(p.code).toBe('UNREADABLE');
    expect(p.hint).toMatch(/permissions/);
    const s = r.sessions.find((x) => x.path.includes('WFS-bug-fix-123') || x.id.includes('bug-fix-123'))!;
    expect(s.resume.recommended).toBe('live');
    expect(s.resume.warnings.join(' ')).not.toMatch(/is damaged|rebuild from/);
    expect(s.resume.options.find((o) => o.recommended)!.loses).toMatch(/^Nothing/);
  });

  it('bmad: the pointer at a session whose file is unreadable is not DANGLING_ACTIVE ("clear the pointer")', () => {
    const d = copyCase('bmad', 'active');
    const file = '_bmad-output/sessions/SES202601-ACME-AUDIT.yaml';
    fs.chmodSync(path.join(d, file), 0o000);
    const r = inspectAsNobody('bmad', d);
    expect(r.problems.map((p) => p.code)).not.toContain('DANGLING_ACTIVE');
    const p = r.problems.find((x) => x.path === file)!;
    expect(p.code).toBe('UNREADABLE');
    expect(p.message).toContain('active-session.yaml names it as the active session');
    expect(p.hint).toMatch(/permissions/);
  });

  it('maestro: an unreadable archive folder is reported, not taken for an empty one', () => {
    const d = copyCase('maestro', 'completed-archived');
    const archive = fs
      .readdirSync(path.join(d), { recursive: true, encoding: 'utf8' })
      .find((p) => p.endsWith(path.join('state', 'archive')))!;
    fs.chmodSync(path.join(d, archive), 0o000);
    const r = inspectAsNobody('maestro', d);
    const p = allProblems(r).find((x) => x.code === 'UNREADABLE');
    expect(p?.path).toBe(archive.split(path.sep).join('/'));
    expect(p!.hint).toMatch(/permissions/);
  });

  it('an unreadable root folder is refused as unreadable, not as missing or as "no known layout"', () => {
    const d = copyCase('maestro', 'mid-run-yaml');
    fs.chmodSync(d, 0o000);
    const out = asNobody(
      'maestro',
      `try { await SafeDir.open(${JSON.stringify(d)}); return null; } catch (e) { return { code: e.code, message: e.message, details: e.details }; }`,
    ) as { code: string; message: string; details: { reason: string } };
    fs.chmodSync(d, 0o755);
    expect(out.code).toBe('BAD_INPUT');
    expect(out.details.reason).toBe('UNREADABLE');
    expect(out.message).toMatch(/permission denied/);
  });
});
