/**
 * Export in Go Team's layout, through the real import/export machinery of the formats core:
 * inspect → import → export → inspect gives the same facts; the registry at the destination
 * keeps its other sessions; a session born in baton gets a complete Go Team folder; and
 * import → export → import through the manager loses nothing the format holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/apply.js';
import type { StoredEvent } from '../../src/domain/events.js';
import type { SessionState } from '../../src/domain/state.js';
import { exportInput, runExport } from '../../src/formats/export.js';
import { goTeamAdapter } from '../../src/formats/go-team/index.js';
import { importedState } from '../../src/formats/import.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession } from '../../src/formats/types.js';
import type { SessionManager } from '../../src/manager/manager.js';
import {
  cleanTemps,
  copyCase,
  facts,
  FIXTURES,
  inspectAt,
  inspectCase,
  NOW,
  session,
  snapshot,
  tempDir,
  unitStatuses,
} from './go-team-helpers.js';
import { clockedManager } from './core-helpers.js';

afterEach(cleanTemps);

const CTX = { importedAt: '2026-01-05T10:00:00.000Z', root: '/src' };

/** Imports `s` with the core's mapping and exports it into `out` with the go-team adapter. */
async function exportVia(s: ForeignSession, out: string, now = NOW) {
  const state = importedState(s, CTX, s.id);
  return runExport(goTeamAdapter, exportInput(state, 'go-team', now), await SafeDir.open(out));
}

function readJson(p: string): any {
  return JSON.parse(fs.readFileSync(p, 'utf8'));
}

const CASES: Array<[string, string[]]> = [
  ['mid-run', ['session-a1b2c3d4']],
  ['stale-active', ['session-5ta1e000']],
  ['interrupted-string', ['session-1e7e5700']],
  ['interrupted-boolean', ['session-b0013a00', 'session-9a05ed00', 'session-abad0000']],
  ['completed', ['session-c0111e7e']],
  ['failed', ['session-fa11ed00']],
  ['rolled-back', ['session-r011bac0']],
  ['interrupted-error', ['session-e4404e00']],
  ['dangling', ['session-d0000001']],
  ['two-active', ['session-a0000001', 'session-b0000002']],
  ['orphan', ['session-11573d00', 'session-0a9a0000']],
];

describe('go-team export: inspect(export(import(X))) has the facts of inspect(X)', () => {
  it.each(CASES)('%s', async (c, ids) => {
    const before = await inspectCase(c);
    const out = tempDir();
    for (const id of ids) await exportVia(session(before, id), out);
    const after = await inspectAt(out);
    expect(after.sessions.map((s) => s.id).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(facts(session(after, id))).toEqual(facts(session(before, id)));
    // The registry lists exactly the exported sessions, once each.
    expect(readJson(path.join(out, 'checkpoints/sessions.json')).sessions.map((e: { id: string }) => e.id)).toEqual(
      ids,
    );
  });

  it("writes Go Team's own fields: an action save, the registry entry, progress, recovery for an interrupted session", async () => {
    const s = session(await inspectCase('stale-active'), 'session-5ta1e000');
    const out = tempDir();
    const now = new Date('2026-01-05T12:00:00.000Z');
    const outcome = await exportVia(s, out, now);
    expect(outcome.written.sort()).toEqual(
      [
        'sessions.json',
        ...[
          'state.json',
          'manifest.json',
          'recovery.json',
          'cp-01-init-20251228-210000.json',
          'cp-02-requirements-20251228-210500.json',
          'cp-03-architecture-20251228-211000.json',
          'cp-04-implementation-20251228-211500.json',
        ].map((f) => `session-5ta1e000/${f}`),
      ]
        .map((f) => `checkpoints/${f}`)
        .sort(),
    );
    const live = readJson(path.join(out, 'checkpoints/session-5ta1e000/state.json'));
    // Nothing changed in baton: no save happened, the save time and trigger stay as written.
    expect(live.saved_at).toBe('2025-12-28T21:44:30Z');
    expect(live.save_trigger).toBe('auto');
    expect(live.recovery_point).toEqual({
      checkpoint: 'cp-04-implementation-20251228-211500',
      actions_since_checkpoint: 12,
      can_resume_from_action: true,
    });
    const reg = readJson(path.join(out, 'checkpoints/sessions.json'));
    expect(reg.version).toBe('1.0.0');
    expect(reg.last_active_session).toBe('session-5ta1e000');
    expect(reg.sessions[0]).toEqual({
      id: 'session-5ta1e000',
      topic: 'payment-gateway',
      status: 'interrupted', // was "active" with a dead heartbeat
      created_at: '2025-12-28T21:00:00Z',
      updated_at: '2026-01-05T12:00:00.000Z',
      current_step: 4,
      current_checkpoint: 'cp-04-implementation-20251228-211500',
      progress: { steps_completed: 4, total_steps: 9, percentage: 44 },
      git_branch: 'go-team/session-5ta1e000',
      resumable: true,
    });
    const rec = readJson(path.join(out, 'checkpoints/session-5ta1e000/recovery.json'));
    expect(rec.recommended).toBe('checkpoint');
    expect(rec.recovery_options.map((o: { type: string }) => o.type)).toEqual([
      'checkpoint',
      'live_state',
      'fresh_start',
    ]);
    expect(rec.last_known_state).toMatchObject({ step: 4, step_name: 'implementation' });
    // The checkpoint files are the imported ones (their checksums still verify).
    const after = session(await inspectAt(out, now), 'session-5ta1e000');
    expect(after.checkpoints.every((c) => c.valid)).toBe(true);
    expect(after.problems).toEqual([]);
  });

  it('keeps every unknown field of the imported documents (registry entry, recovery.json, checkpoints)', async () => {
    const out = tempDir();
    await exportVia(session(await inspectCase('mid-run'), 'session-a1b2c3d4'), out);
    const reg = readJson(path.join(out, 'checkpoints/sessions.json'));
    expect(reg.sessions[0].custom_field).toEqual({ keep: true });
    const out2 = tempDir();
    await exportVia(session(await inspectCase('interrupted-boolean'), 'session-b0013a00'), out2);
    const src = path.join(FIXTURES, 'interrupted-boolean/checkpoints/session-b0013a00');
    const dst = path.join(out2, 'checkpoints/session-b0013a00');
    expect(readJson(path.join(dst, 'recovery.json'))).toEqual(readJson(path.join(src, 'recovery.json')));
    for (const f of fs.readdirSync(src).filter((n) => n.startsWith('cp-')))
      expect(readJson(path.join(dst, f))).toEqual(readJson(path.join(src, f)));
    const live = readJson(path.join(dst, 'state.json'));
    const orig = readJson(path.join(src, 'state.json'));
    expect(live.outputs).toEqual(orig.outputs);
    expect(live.context).toEqual(orig.context);
    expect(live.state.metrics).toEqual(orig.state.metrics);
  });

  it('writes back a damaged file it could not parse as it was, so the damage stays visible', async () => {
    const out = tempDir();
    await exportVia(session(await inspectCase('corrupt-checkpoint'), 'session-c0aa0b70'), out);
    expect(fs.readFileSync(path.join(out, 'checkpoints/session-c0aa0b70/rollback-history.json'), 'utf8')).toBe(
      '{"session_id": "session-c0aa0b70", "history": [',
    );
  });

  it('gives a session without live state a fresh state.json: the live option appears, the rest is unchanged', async () => {
    const before = session(await inspectCase('dangling'), 'session-n0f01de7');
    const out = tempDir();
    await exportVia(before, out);
    const after = session(await inspectAt(out), 'session-n0f01de7');
    expect(unitStatuses(after)).toBe(unitStatuses(before));
    expect(after.status).toBe('paused');
    expect(before.resume.options.map((o) => o.kind)).toEqual(['fresh']);
    expect(after.resume.options.map((o) => o.kind)).toEqual(['live', 'fresh']);
  });
});

describe('go-team export: the registry at the destination', () => {
  it('merges into an existing registry: other entries and their folders untouched, the active pointer moved to an active session', async () => {
    const out = copyCase('interrupted-boolean');
    const regPath = path.join(out, 'checkpoints/sessions.json');
    const regBefore = readJson(regPath);
    const others = snapshot(path.join(out, 'checkpoints'));
    await exportVia(session(await inspectCase('mid-run'), 'session-a1b2c3d4'), out);
    const reg = readJson(regPath);
    expect(reg.sessions.map((e: { id: string }) => e.id)).toEqual([
      'session-b0013a00',
      'session-9a05ed00',
      'session-abad0000',
      'session-a1b2c3d4',
    ]);
    expect(reg.sessions.slice(0, 3)).toEqual(regBefore.sessions);
    expect(reg.version).toBe(regBefore.version);
    expect(reg.last_active_session).toBe('session-a1b2c3d4');
    const now = snapshot(path.join(out, 'checkpoints'));
    for (const [rel, v] of others) if (rel !== 'sessions.json') expect(now.get(rel)).toEqual(v);
    const r = await inspectAt(out);
    expect(r.sessions).toHaveLength(4);
    expect(session(r, 'session-a1b2c3d4').status).toBe('active');
    expect(session(r, 'session-b0013a00').active).toBe(false);
  });

  it("keeps the destination's active pointer when the exported session is not active", async () => {
    const out = copyCase('interrupted-boolean');
    await exportVia(session(await inspectCase('completed'), 'session-c0111e7e'), out);
    const reg = readJson(path.join(out, 'checkpoints/sessions.json'));
    expect(reg.last_active_session).toBe('session-b0013a00');
    expect(reg.sessions.at(-1)).toMatchObject({
      id: 'session-c0111e7e',
      status: 'completed',
      resumable: false,
      completed_at: '2025-12-28T21:55:00Z',
    });
  });

  it('updates its own entry in place when exported again (no duplicate)', async () => {
    const out = copyCase('interrupted-boolean');
    const s = session(await inspectCase('interrupted-boolean'), 'session-9a05ed00');
    await exportVia(s, out, new Date('2026-01-01T00:00:00Z'));
    await exportVia(s, out, new Date('2026-01-02T00:00:00Z'));
    const reg = readJson(path.join(out, 'checkpoints/sessions.json'));
    expect(reg.sessions.map((e: { id: string }) => e.id)).toEqual([
      'session-b0013a00',
      'session-9a05ed00',
      'session-abad0000',
    ]);
    // Nothing changed in baton since the import: updated_at is written as it was (issue 14).
    expect(reg.sessions[1]).toMatchObject({ status: 'paused', updated_at: '2025-12-28T21:10:00Z', resumable: true });
  });

  it('writes into the layout found at the destination (a project root keeps .claude/agents/microai/teams/go-team/)', async () => {
    const out = copyCase('mid-run');
    await exportVia(session(await inspectCase('failed'), 'session-fa11ed00'), out);
    expect(
      fs.existsSync(path.join(out, '.claude/agents/microai/teams/go-team/checkpoints/session-fa11ed00/state.json')),
    ).toBe(true);
    expect(fs.existsSync(path.join(out, 'checkpoints'))).toBe(false);
    expect((await inspectAt(out)).sessions.map((s) => s.id)).toEqual(['session-a1b2c3d4', 'session-fa11ed00']);
  });

  it('refuses to overwrite a registry it cannot read (the other sessions would be lost) and writes nothing', async () => {
    const out = copyCase('failed');
    const regPath = path.join(out, 'checkpoints/sessions.json');
    fs.writeFileSync(regPath, '{"version": "1.0.0", "sessions": [');
    const before = snapshot(out);
    await expect(exportVia(session(await inspectCase('completed'), 'session-c0111e7e'), out)).rejects.toMatchObject({
      code: 'CORRUPT',
    });
    expect(snapshot(out)).toEqual(before);
  });
});

describe('go-team export: back into a folder the toolkit still writes (mirror)', () => {
  it('keeps what Go Team wrote there after the import: newer live-state fields, new and rewritten checkpoint files', async () => {
    const d = copyCase('stale-active');
    const s = session(await inspectAt(d), 'session-5ta1e000');
    const sdir = path.join(d, 'checkpoints/session-5ta1e000');
    // Go Team keeps working after the import.
    const live = readJson(path.join(sdir, 'state.json'));
    live.context.current_line = 99;
    live.outputs.test_files = ['internal/service/auth_service_test.go'];
    fs.writeFileSync(path.join(sdir, 'state.json'), JSON.stringify(live, null, 2));
    fs.writeFileSync(
      path.join(sdir, 'cp-04-implementation-20251228-211500.json'),
      `${fs.readFileSync(path.join(sdir, 'cp-04-implementation-20251228-211500.json'), 'utf8')}\n`,
    );
    const cpBefore = fs.readFileSync(path.join(sdir, 'cp-04-implementation-20251228-211500.json'), 'utf8');
    await exportVia(s, d);
    const after = readJson(path.join(sdir, 'state.json'));
    expect(after.context.current_line).toBe(99);
    expect(after.outputs.test_files).toEqual(['internal/service/auth_service_test.go']);
    expect(after.save_trigger).toBe('auto'); // baton changed nothing: no save of its own
    expect(fs.readFileSync(path.join(sdir, 'cp-04-implementation-20251228-211500.json'), 'utf8')).toBe(cpBefore);
    expect(readJson(path.join(d, 'checkpoints/sessions.json')).sessions).toHaveLength(1);
  });
});

describe('go-team export: a session born in baton', () => {
  const actor = { agent: 'tester', pid: 1, host: 'h' };
  function born(phaseIds: string[], more: Array<{ type: string; data: unknown; time?: string }> = []): SessionState {
    const events = [
      {
        type: 'session.created',
        data: {
          title: 'Born in baton',
          idFormat: 'date',
          phases: phaseIds.map((id) => ({ id, name: `Phase ${id}` })),
          budgetMax: null,
          contextSummary: 'Designing the cache',
        },
        time: '2026-01-05T09:00:00.000Z',
      },
      ...more,
    ];
    return fold(
      null,
      events.map((e, i) => ({ time: '2026-01-05T09:30:00.000Z', ...e, actor, seq: i + 1 }) as StoredEvent),
      'born-1',
    )!;
  }

  it('gets a complete Go Team folder: registry, manifest, state, recovery; units and tokens read back', async () => {
    const state = born(
      ['1', '2', '3', '4', '5', '6', '7', '8', '9'],
      [
        { type: 'phase.started', data: { phaseId: '1', agent: 'orchestrator', forced: false } },
        { type: 'phase.completed', data: { phaseId: '1', agent: 'orchestrator' } },
        { type: 'phase.started', data: { phaseId: '2', agent: 'pm-agent', forced: false } },
        { type: 'phase.completed', data: { phaseId: '2', agent: 'pm-agent' } },
        { type: 'phase.started', data: { phaseId: '3', agent: 'architect-agent', forced: false } },
        { type: 'tokens.recorded', data: { agent: 'pm-agent', phaseId: '2', input: 1000, output: 500, cached: 100 } },
        {
          type: 'tokens.recorded',
          data: { agent: 'architect-agent', phaseId: '3', input: 2000, output: 700, cached: 0 },
        },
        { type: 'session.interrupted', data: { cause: 'timeout', detail: null } },
      ],
    );
    const out = tempDir();
    const now = new Date('2026-01-05T10:00:00.000Z');
    await runExport(goTeamAdapter, exportInput(state, 'go-team', now), await SafeDir.open(out));
    const r = await inspectAt(out, now);
    expect(r.problems).toEqual([]);
    const s = session(r, 'born-1');
    expect(s.title).toBe('Born in baton');
    expect(s.status).toBe('interrupted');
    expect(unitStatuses(s)).toBe(
      '1:completed 2:completed 3:in_progress 4:pending 5:pending 6:pending 7:pending 8:pending 9:pending',
    );
    expect(s.contextSummary).toBe('Designing the cache');
    expect(s.tokens).toEqual({
      input: 3000,
      output: 1200,
      cached: 100,
      byAgent: {
        'pm-agent': { input: 1000, output: 500, cached: 100 },
        'architect-agent': { input: 2000, output: 700, cached: 0 },
      },
      byUnit: { '2': { input: 1000, output: 500, cached: 100 }, '3': { input: 2000, output: 700, cached: 0 } },
      agrees: true,
      max: null,
    });
    // No Go Team checkpoint exists: checkpoint recovery is impossible, live is recommended.
    expect(s.checkpoints).toEqual([]);
    expect(s.resume.recommended).toBe('live');
    expect(s.resume.unitId).toBe('3');
    const rec = readJson(path.join(out, 'checkpoints/born-1/recovery.json'));
    expect(rec).toMatchObject({ session_id: 'born-1', interrupt_reason: 'timeout', recommended: 'live_state' });
    const reg = readJson(path.join(out, 'checkpoints/sessions.json'));
    expect(reg.sessions[0]).toMatchObject({
      id: 'born-1',
      status: 'interrupted',
      current_step: 3,
      progress: { steps_completed: 2, total_steps: 9, percentage: 22 },
      git_branch: 'go-team/born-1',
      resumable: true,
    });
  });

  it('maps phases named after the steps onto them (never by position); an active session becomes last_active_session', async () => {
    const state = born(
      ['init', 'requirements', 'architecture'],
      [
        { type: 'phase.started', data: { phaseId: 'init', agent: null, forced: false } },
        { type: 'phase.completed', data: { phaseId: 'init', agent: null } },
      ],
    );
    const out = tempDir();
    const now = new Date('2026-01-05T10:00:00.000Z');
    await runExport(goTeamAdapter, exportInput(state, 'go-team', now), await SafeDir.open(out));
    const reg = readJson(path.join(out, 'checkpoints/sessions.json'));
    expect(reg.last_active_session).toBe('born-1');
    expect(reg.sessions[0]).toMatchObject({ status: 'active', current_step: 1, progress: { steps_completed: 1 } });
    const s = session(await inspectAt(out, now), 'born-1');
    expect(s.status).toBe('active');
    expect(s.units[0]?.status).toBe('completed');
    expect(s.position.unitId).toBe('2');
  });
});

describe('go-team: import → export → import through the manager', () => {
  const manager = (): SessionManager => clockedManager('2026-01-05T10:00:00Z');

  it.each(['interrupted-boolean', 'rolled-back', 'completed', 'interrupted-string', 'failed', 'interrupted-error'])(
    '%s: the second import equals the first',
    async (c) => {
      const o = { cwd: '/', now: () => NOW, adapters: [goTeamAdapter] };
      const m1 = manager();
      const first = await m1.formats.import(path.join(FIXTURES, c), 'go-team', o);
      const out = tempDir();
      for (const s of first.sessions) {
        expect(s.action).toBe('created');
        await m1.formats.export(s.id as string, 'go-team', out, o);
      }
      const m2 = manager();
      const second = await m2.formats.import(out, 'go-team', o);
      expect(second.sessions.map((s) => [s.id, s.action])).toEqual(first.sessions.map((s) => [s.id, 'created']));
      for (const s of first.sessions) {
        const a = await m1.get(s.id as string);
        const b = await m2.get(s.id as string);
        const view = (x: SessionState) => ({
          title: x.title,
          status: x.status,
          phases: x.phases.map((p) => ({
            id: p.id,
            status: p.status,
            subStep: p.subStep,
            files: p.files.map((f) => [f.path, f.action]),
            completedAt: p.completedAt,
            metadata: p.metadata,
          })),
          tokens: x.tokens,
          findings: x.findings.map((f) => [f.text, f.severity, f.phaseId]),
          notes: x.notes.map((n) => n.text),
          contextSummary: x.contextSummary,
        });
        expect(view(b)).toEqual(view(a));
      }
    },
  );

  it('importing the same tree again changes nothing (every session unchanged)', async () => {
    const o = { cwd: '/', now: () => NOW, adapters: [goTeamAdapter] };
    const m = manager();
    const first = await m.formats.import(path.join(FIXTURES, 'interrupted-boolean'), 'go-team', o);
    expect(first.sessions.map((s) => s.action)).toEqual(['created', 'created', 'created']);
    const again = await m.formats.import(path.join(FIXTURES, 'interrupted-boolean'), 'go-team', o);
    expect(again.sessions.map((s) => [s.id, s.action])).toEqual(first.sessions.map((s) => [s.id, 'unchanged']));
  });
});
