/**
 * BMAD adapter, writing, through the core's import and export: the session file in
 * `sessions/` or `sessions/archive/`, the pointer in its original style, unmapped fields
 * kept, legacy token names written as the current ones; `inspect` of the output gives the
 * facts of the source; import → export → import through the manager gives the same session.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/domain/state.js';
import { bmadAdapter } from '../../src/formats/bmad/index.js';
import { exportInput, runExport } from '../../src/formats/export.js';
import { importedState, PROVENANCE_KEY } from '../../src/formats/import.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession, InspectReport } from '../../src/formats/types.js';
import { yamlModule } from '../../src/formats/yaml.js';
import { cleanTemps, codes, copyCase, FIXTURES, inspectAt, NOW, snapshot, tempDir } from './bmit-helpers.js';
import { clockedManager, timeOrMadeUp } from './core-helpers.js';

afterEach(cleanTemps);

const CTX = { importedAt: '2026-05-30T08:00:00.000Z', root: '/src' };
const fx = (c: string) => path.join(FIXTURES, 'bmad', c);
const byId = (r: InspectReport, id: string) => r.sessions.find((s) => s.id === id)!;
const imported = (s: ForeignSession): SessionState => importedState(s, CTX, s.id);
const readYaml = async (p: string) => yamlModule().parse(await fs.readFile(p, 'utf8'));

async function exportTo(s: ForeignSession, out: string, state = imported(s)) {
  const input = exportInput(state, 'bmad', NOW);
  const dir = await SafeDir.open(out, process.cwd(), { create: true });
  const plan = await bmadAdapter.exportPlan(input, dir);
  const outcome = await runExport(bmadAdapter, input, dir);
  return { plan, outcome };
}

/** The facts a round trip keeps (the tree-level pointer wording aside). */
function facts(s: ForeignSession) {
  return {
    id: s.id,
    title: s.title,
    rawStatus: s.rawStatus,
    status: s.status,
    active: s.active,
    archived: s.archived,
    createdAt: s.createdAt,
    units: s.units,
    position: s.position,
    resume: { action: s.resume.action, unitId: s.resume.unitId, warnings: s.resume.warnings },
    tokens: s.tokens,
    decisions: s.decisions,
    notes: s.notes,
    milestones: s.milestones,
    artifacts: s.artifacts,
    contextSummary: s.contextSummary,
  };
}

const CASES: Array<[string, string[]]> = [
  ['active', ['SES202601-ACME-AUDIT', 'ENG202512-TESLA-API']],
  ['paused', ['ENG202602-TESLA-API']],
  ['closed-archived', ['SES202512-ACME-MVP']],
  ['archive-copied', ['SES202511-OLD-ONE', 'SES202604-ALPHA-ONE', 'SES202604-BETA-TWO']],
  ['legacy-tokens', ['ANA202601-CONTOSO-DATA']],
];

describe('bmad export → inspect', () => {
  it.each(CASES)('%s: the exported sessions read back with the same facts', async (c, ids) => {
    const before = await inspectAt(bmadAdapter, fx(c));
    const out = await tempDir('bmad-out');
    for (const id of ids) await exportTo(byId(before, id), out);
    const after = await inspectAt(bmadAdapter, out);
    expect(after.sessions.map((s) => s.id).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(facts(byId(after, id))).toEqual(facts(byId(before, id)));
  });

  it('dangling / missing fields: the same units, tokens and statuses; the missing fields are filled', async () => {
    const a = byId(await inspectAt(bmadAdapter, fx('missing-fields')), 'TST202605-NO-FIELDS');
    const out = await tempDir('bmad-out');
    await exportTo(a, out);
    const b = byId(await inspectAt(bmadAdapter, out), 'TST202605-NO-FIELDS');
    expect({ ...facts(b), rawStatus: null }).toEqual(facts(a));
    expect(b.rawStatus).toBe('active');
    // Filled: session_id, status, the agent's id; not invented: created, the agent's status; the
    // absent tokens block stays absent (baton changed no token figure: issue 14).
    expect(codes(b.problems, 'MISSING_FIELD').map((p) => p.details?.['field'])).toEqual([
      'created',
      'agents_spawned[].status',
      'tokens',
    ]);
    const d = byId(await inspectAt(bmadAdapter, fx('dangling')), 'DES202603-ACME-UI');
    const out2 = await tempDir('bmad-out');
    await exportTo(d, out2);
    expect(facts(byId(await inspectAt(bmadAdapter, out2), 'DES202603-ACME-UI'))).toEqual(facts(d));
  });

  it('writes an active session to sessions/<id>.yaml; nothing changed in baton, so every field, last_updated included, is kept', async () => {
    const a = byId(await inspectAt(bmadAdapter, fx('active')), 'SES202601-ACME-AUDIT');
    const out = await tempDir('bmad-out');
    const { plan } = await exportTo(a, out);
    expect(plan.writes.map((w) => [w.path, w.backup])).toEqual([
      ['_bmad-output/sessions/SES202601-ACME-AUDIT.yaml', false],
      ['_bmad-output/sessions/active-session.yaml', false],
    ]);
    expect(plan.removes).toEqual([]);
    const before = a.documents['_bmad-output/sessions/SES202601-ACME-AUDIT.yaml'] as Record<string, unknown>;
    const after = await readYaml(path.join(out, '_bmad-output/sessions/SES202601-ACME-AUDIT.yaml'));
    expect(after).toEqual(before);
    expect(await readYaml(path.join(out, '_bmad-output/sessions/active-session.yaml'))).toEqual({
      session_id: 'SES202601-ACME-AUDIT',
    });
  });

  it('keeps the pointer style: a bare id stays a bare id, a full copy is refreshed as a full copy', async () => {
    const p = byId(await inspectAt(bmadAdapter, fx('paused')), 'ENG202602-TESLA-API');
    const out = await tempDir('bmad-out');
    await exportTo(p, out);
    expect(await fs.readFile(path.join(out, '_bmad-output/sessions/active-session.yaml'), 'utf8')).toBe(
      'ENG202602-TESLA-API\n',
    );
    const a = byId(await inspectAt(bmadAdapter, fx('archive-copied')), 'SES202604-ALPHA-ONE');
    const out2 = await tempDir('bmad-out');
    await exportTo(a, out2);
    const copy = await readYaml(path.join(out2, '_bmad-output/sessions/active-session.yaml'));
    expect(copy).toEqual(await readYaml(path.join(out2, '_bmad-output/sessions/SES202604-ALPHA-ONE.yaml')));
    const r = await inspectAt(bmadAdapter, out2);
    expect(codes(r.problems, 'ACTIVE_POINTER').map((x) => x.details)).toEqual([
      { style: 'copy', sessionId: 'SES202604-ALPHA-ONE' },
    ]);
    expect(codes(r.problems, 'REGISTRY_MISMATCH')).toEqual([]);
  });

  it('keeps the legacy saved_by_isolation, max_limit and warning_threshold and an absent max as they were (baton changed none of them)', async () => {
    const a = byId(await inspectAt(bmadAdapter, fx('legacy-tokens')), 'ANA202601-CONTOSO-DATA');
    const out = await tempDir('bmad-out');
    await exportTo(a, out);
    const t = (await readYaml(path.join(out, '_bmad-output/sessions/ANA202601-CONTOSO-DATA.yaml'))).tokens;
    expect(t).toEqual({
      initial: 0,
      current: 140000,
      peak: 141000,
      warning_threshold: 120000,
      max_limit: 150000,
      saved_by_isolation: 60000,
    });
    const b = byId(await inspectAt(bmadAdapter, out), 'ANA202601-CONTOSO-DATA');
    expect(codes(b.problems, 'LEGACY_FIELD').map((p) => p.details?.['field'])).toEqual([
      'tokens.saved_by_isolation',
      'tokens.max_limit',
      'tokens.warning_threshold',
    ]);
    expect((b.tokens as unknown as { bmad: Record<string, unknown> }).bmad).toMatchObject({
      max: 150000,
      saved: 60000,
    });
  });

  it('closing in baton moves the session to archive/, removes the live copy and clears the pointer (keyed style: null)', async () => {
    const a = byId(await inspectAt(bmadAdapter, fx('active')), 'SES202601-ACME-AUDIT');
    const out = await copyCase('bmad', 'active');
    const state = imported(a);
    state.status = 'completed';
    state.archived = true;
    const { plan } = await exportTo(a, out, state);
    expect(plan.writes.map((w) => w.path)).toEqual([
      '_bmad-output/sessions/archive/SES202601-ACME-AUDIT.yaml',
      '_bmad-output/sessions/active-session.yaml',
    ]);
    expect(plan.removes).toEqual(['_bmad-output/sessions/SES202601-ACME-AUDIT.yaml']);
    expect(await readYaml(path.join(out, '_bmad-output/sessions/active-session.yaml'))).toEqual({ session_id: null });
    const r = await inspectAt(bmadAdapter, out);
    const s = byId(r, 'SES202601-ACME-AUDIT');
    expect([s.rawStatus, s.archived, s.active, s.resume.action]).toEqual(['closed', true, false, 'refuse']);
    expect(codes(r.problems, 'ARCHIVE_COPIED')).toEqual([]);
    expect(codes(r.problems, 'ACTIVE_POINTER').map((p) => p.details)).toEqual([
      { style: 'session_id', sessionId: null },
    ]);
  });

  it('closing a session with a bare-id pointer removes the pointer file', async () => {
    const a = byId(await inspectAt(bmadAdapter, fx('paused')), 'ENG202602-TESLA-API');
    const out = await copyCase('bmad', 'paused');
    const state = imported(a);
    state.status = 'completed';
    const { plan } = await exportTo(a, out, state);
    expect(plan.removes).toEqual(['sessions/ENG202602-TESLA-API.yaml', 'sessions/active-session.yaml']);
    await expect(fs.stat(path.join(out, 'sessions/active-session.yaml'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readYaml(path.join(out, 'sessions/archive/ENG202602-TESLA-API.yaml'))).status).toBe('closed');
  });

  it('exporting the archive-copied session into its own tree removes the stale live copy', async () => {
    const out = await copyCase('bmad', 'archive-copied');
    const a = byId(await inspectAt(bmadAdapter, out), 'SES202511-OLD-ONE');
    await exportTo(a, out);
    expect(codes((await inspectAt(bmadAdapter, out)).problems, 'ARCHIVE_COPIED')).toEqual([]);
  });

  it('writes what changed in baton: tokens, a finished agent, a new milestone done, a note, an artifact; writes in the layout found', async () => {
    const a = byId(await inspectAt(bmadAdapter, fx('active')), 'SES202601-ACME-AUDIT');
    const state = imported(a);
    state.tokens.input += 5000;
    const dev = state.phases.find((p) => p.id === 'agent-125')!;
    dev.status = 'completed';
    dev.completedAt = '2026-01-15T15:00:00.000Z';
    state.milestones[2]!.done = true;
    state.milestones[2]!.doneAt = '2026-01-15T15:05:00.000Z';
    state.notes.push({
      id: 'note-9',
      text: 'Callback done',
      phaseId: null,
      agent: null,
      time: '2026-01-15T15:06:00.000Z',
    });
    state.artifacts.push({
      id: 'art-9',
      path: 'src/auth/callback.ts',
      kind: 'code',
      description: null,
      phaseId: null,
      agent: 'dev',
      time: '2026-01-15T15:00:00.000Z',
    });
    const out = await copyCase('bmad', 'paused');
    const { plan } = await exportTo(a, out, state);
    expect(plan.writes[0]!.path).toBe('sessions/SES202601-ACME-AUDIT.yaml');
    const doc = await readYaml(path.join(out, 'sessions/SES202601-ACME-AUDIT.yaml'));
    expect(doc.tokens).toEqual({ max: 150000, initial: 0, current: 50000, peak: 52000, saved: 145000 });
    expect(doc.agents_spawned[2]).toEqual({
      id: 'agent-125',
      type: 'dev',
      started: '2026-01-15T13:00:00Z',
      completed: '2026-01-15T15:00:00.000Z',
      tokens_used: 85000,
      output_file: '_bmad-output/temp/dev-125.md',
      status: 'completed',
    });
    expect(doc.milestones[2]).toEqual({
      name: 'Implementation Started',
      completed: '2026-01-15T15:05:00.000Z',
      target_date: '2026-02-01',
    });
    expect(doc.notes).toEqual([
      'Client prefers OAuth2 over JWT',
      'Performance requirement: <200ms response time',
      'Callback done',
    ]);
    expect(doc.artifacts[2]).toEqual({
      path: 'src/auth/callback.ts',
      created: '2026-01-15T15:00:00.000Z',
      agent: 'dev',
      type: 'code',
    });
    // The paused session's bare pointer is switched to the exported active one, in the same style.
    expect(await fs.readFile(path.join(out, 'sessions/active-session.yaml'), 'utf8')).toBe('SES202601-ACME-AUDIT\n');
  });

  it('a session born in baton gets a complete BMAD file and the pointer', async () => {
    const a = byId(await inspectAt(bmadAdapter, fx('active')), 'SES202601-ACME-AUDIT');
    const state = imported(a);
    delete state.metadata[PROVENANCE_KEY];
    state.id = 'SES202606-BATON-BORN';
    const out = await tempDir('bmad-out');
    const input = exportInput(state, 'bmad', NOW);
    expect(input.original).toBeNull();
    await runExport(bmadAdapter, input, await SafeDir.open(out));
    const r = await inspectAt(bmadAdapter, out);
    const s = byId(r, 'SES202606-BATON-BORN');
    expect([s.rawStatus, s.active, s.resume.action, s.units.length, s.tokens?.input]).toEqual([
      'active',
      true,
      'continue',
      3,
      45000,
    ]);
    // The fixture's running agent stays running, so it reads back orphaned (issue 27).
    expect(s.problems.map((p) => p.code)).toEqual(['ORPHANED_AGENT']);
    expect(codes(r.problems, 'ACTIVE_POINTER').map((p) => p.details)).toEqual([
      { style: 'session_id', sessionId: 'SES202606-BATON-BORN' },
    ]);
  });
});

describe('bmad: import → export → import through the manager', () => {
  const manager = clockedManager;
  const o = { cwd: '/', now: () => NOW, adapters: [bmadAdapter] };
  const view = (x: SessionState) => {
    const t = timeOrMadeUp(x);
    return {
      title: x.title,
      status: x.status,
      archived: x.archived,
      phases: x.phases.map((p) => ({
        id: p.id,
        name: p.name,
        status: p.status,
        agents: p.agents,
        files: p.files.map((f) => [f.path, f.action]),
        startedAt: t(`phase:${p.id}:startedAt`, p.startedAt),
        completedAt: t(`phase:${p.id}:completedAt`, p.completedAt),
        metadata: p.metadata,
      })),
      tokens: x.tokens,
      decisions: x.decisions.map((d) => [d.title, d.choice, d.rationale, d.agent, t(`decision:${d.id}`, d.time)]),
      notes: x.notes.map((n) => [n.text, n.agent, t(`note:${n.id}`, n.time)]),
      milestones: x.milestones.map((m) => [m.title, m.targetDate, m.done, m.doneAt]),
      artifacts: x.artifacts.map((a) => [a.path, a.kind, a.description, a.agent, t(`artifact:${a.id}`, a.time)]),
      contextSummary: x.contextSummary,
    };
  };

  it.each(['active', 'paused', 'closed-archived', 'legacy-tokens', 'archive-copied'])(
    '%s: the second import equals the first, the source is untouched',
    async (c) => {
      const src = await copyCase('bmad', c);
      const before = await snapshot(src);
      const m1 = manager();
      const first = await m1.formats.import(src, 'bmad', o);
      expect(await snapshot(src)).toEqual(before);
      const out = await tempDir('bmad-rt');
      const created = first.sessions.filter((s) => s.action === 'created');
      expect(created.length).toBeGreaterThan(0);
      for (const s of created) await m1.formats.export(s.id as string, 'bmad', out, o);
      const m2 = manager();
      const second = await m2.formats.import(out, 'bmad', o);
      expect(second.sessions.map((s) => [s.id, s.action]).sort()).toEqual(created.map((s) => [s.id, 'created']).sort());
      for (const s of created) expect(view(await m2.get(s.id as string))).toEqual(view(await m1.get(s.id as string)));
      const again = await m1.formats.import(src, 'bmad', o);
      expect(again.sessions.filter((s) => s.action !== 'skipped').map((s) => s.action)).toEqual(
        created.map(() => 'unchanged'),
      );
    },
  );
});
