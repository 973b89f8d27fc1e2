/**
 * Foreign ids and pointers that would be paths: an imported id such as "../../x" is only data
 * on import, but on export it would name a file outside the output folder, so the writers
 * fall back to the baton id and say so; a BMAD pointer that is a path is UNSAFE_PATH, and a
 * pointer at a session whose file is there but broken is not "dangling".
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bmadAdapter } from '../../src/formats/bmad/index.js';
import { ccwAdapter } from '../../src/formats/ccw/index.js';
import { exportInput, runExport } from '../../src/formats/export.js';
import { importedState } from '../../src/formats/import.js';
import { maestroAdapter } from '../../src/formats/maestro/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { FormatAdapter } from '../../src/formats/types.js';
import { cleanTemps, copyCase, inspectAt, NOW, only, tempDir } from './bmit-helpers.js';

afterEach(cleanTemps);

const CTX = { importedAt: '2026-05-30T08:00:00.000Z', root: '/src' };
const SESSIONS = '_bmad-output/sessions';
const LIVE = `${SESSIONS}/SES202601-ACME-AUDIT.yaml`;

describe('bmad inspect: the active pointer', () => {
  it("naming a session whose file exists but does not parse is that file's CORRUPT_FILE, not DANGLING_ACTIVE", async () => {
    const d = await copyCase('bmad', 'active');
    await fs.writeFile(path.join(d, LIVE), 'session_id: "SES202601-ACME-AUDIT"\nstatus: [unclosed\n');
    const r = await inspectAt(bmadAdapter, d);
    expect(r.problems.filter((p) => p.code === 'DANGLING_ACTIVE')).toEqual([]);
    const corrupt = r.problems.find((p) => p.code === 'CORRUPT_FILE' && p.path === LIVE)!;
    expect(corrupt.message).toContain('active-session.yaml names it as the active session');
    expect(corrupt.hint).not.toMatch(/Clear the pointer/);
  });

  it('naming a session whose file is empty is not DANGLING_ACTIVE either', async () => {
    const d = await copyCase('bmad', 'active');
    await fs.writeFile(path.join(d, LIVE), '');
    const r = await inspectAt(bmadAdapter, d);
    expect(r.problems.map((p) => p.code)).not.toContain('DANGLING_ACTIVE');
    expect(r.problems.find((p) => p.path === LIVE)?.code).toBe('EMPTY_FILE');
  });

  it('a pointer that is a path ("../../x") is UNSAFE_PATH, not DANGLING_ACTIVE', async () => {
    const d = await copyCase('bmad', 'active');
    await fs.writeFile(path.join(d, SESSIONS, 'active-session.yaml'), 'session_id: "../../x"\n');
    const r = await inspectAt(bmadAdapter, d);
    expect(r.problems.map((p) => p.code)).not.toContain('DANGLING_ACTIVE');
    const p = r.problems.find((x) => x.code === 'UNSAFE_PATH')!;
    expect(p.path).toBe(`${SESSIONS}/active-session.yaml`);
    expect(p.severity).toBe('error');
  });

  it('a pointer at a session that really is absent is still DANGLING_ACTIVE', async () => {
    const d = await copyCase('bmad', 'active');
    await fs.writeFile(path.join(d, SESSIONS, 'active-session.yaml'), 'session_id: SES-GONE\n');
    const r = await inspectAt(bmadAdapter, d);
    expect(r.problems.map((p) => p.code)).toContain('DANGLING_ACTIVE');
  });
});

/** Exports `input` into a fresh folder; returns the plan's problems and the files written. */
async function exportWith(adapter: FormatAdapter, input: ReturnType<typeof exportInput>) {
  const out = await tempDir(`ids-${adapter.name}`);
  const dir = await SafeDir.open(out, process.cwd(), { create: true });
  const plan = await adapter.exportPlan(input, dir);
  const outcome = await runExport(adapter, input, dir);
  const texts = await Promise.all(outcome.written.map((w) => fs.readFile(path.join(out, w), 'utf8')));
  return { plan, outcome, text: texts.join('\n') };
}

describe('export: a foreign id that would be a path falls back to the baton id', () => {
  it('bmad: session_id "../../x" imports, and exports as sessions/<baton id>.yaml with an UNSAFE_PATH warning', async () => {
    const d = await copyCase('bmad', 'active');
    const text = await fs.readFile(path.join(d, LIVE), 'utf8');
    await fs.writeFile(path.join(d, LIVE), text.replace('session_id: "SES202601-ACME-AUDIT"', 'session_id: "../../x"'));
    const s = (await inspectAt(bmadAdapter, d)).sessions.find((x) => x.path === LIVE)!;
    expect(s.id).toBe('../../x');
    const {
      plan,
      outcome,
      text: written,
    } = await exportWith(bmadAdapter, exportInput(importedState(s, CTX, 'acme-audit'), 'bmad', NOW));
    expect(outcome.written).toContain(`${SESSIONS}/acme-audit.yaml`);
    expect(written).toContain('session_id: "acme-audit"'); // the file's quoting is kept
    expect(written).not.toContain('../../x');
    expect(plan.problems?.map((p) => [p.code, p.details?.value, p.details?.written])).toEqual([
      ['UNSAFE_PATH', '../../x', 'acme-audit'],
    ]);
  });

  it('maestro: an imported id "../../x" exports as state/active-session.md holding the baton id', async () => {
    const s = only(
      await inspectAt(
        maestroAdapter,
        path.join(path.dirname(new URL(import.meta.url).pathname), '../fixtures/formats/maestro/mid-run-yaml'),
      ),
    );
    const input = { ...exportInput(importedState(s, CTX, 'auth-service'), 'maestro', NOW), foreignId: '../../x' };
    const { plan, outcome, text } = await exportWith(maestroAdapter, input);
    // The plans travel with the session (issue 14).
    expect(outcome.written).toEqual([
      'state/active-session.md',
      'plans/2026-03-01-auth-service-design.md',
      'plans/2026-03-01-auth-service-impl-plan.md',
    ]);
    expect(text).toContain('session_id: "auth-service"');
    expect(plan.problems?.map((p) => p.code)).toEqual(['UNSAFE_PATH']);
  });

  it('ccw: an imported id "../../x" is not written into the session file or the registry', async () => {
    const d = await copyCase('ccw', 'seed-mid-run');
    const r = await inspectAt(ccwAdapter, d);
    const s = r.sessions.find((x) => x.id === 'WFS-user-profile')!;
    const input = { ...exportInput(importedState(s, CTX, 'user-profile'), 'ccw', NOW), foreignId: '../../x' };
    const { plan, text } = await exportWith(ccwAdapter, input);
    expect(text).not.toContain('../../x');
    expect(text).toContain('"user-profile"');
    expect(plan.problems?.map((p) => p.code)).toEqual(['UNSAFE_PATH']);
  });

  it('a safe id is kept and nothing is reported', async () => {
    const s = (await inspectAt(bmadAdapter, await copyCase('bmad', 'active'))).sessions.find((x) => x.path === LIVE)!;
    const { plan, outcome } = await exportWith(
      bmadAdapter,
      exportInput(importedState(s, CTX, 'acme-audit'), 'bmad', NOW),
    );
    expect(outcome.written).toContain(LIVE);
    expect(plan.problems ?? []).toEqual([]);
  });
});
