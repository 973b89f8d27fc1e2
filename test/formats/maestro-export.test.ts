import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { parseSessionText, type MaestroDocument } from '../../src/formats/maestro/frontmatter.js';
import { maestroAdapter } from '../../src/formats/maestro/index.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession } from '../../src/formats/types.js';
import { SessionManager } from '../../src/manager/manager.js';
import { MemoryStore } from '../../src/store/memory.js';
import { copyCase, facts, FIXTURES, inspect, only } from './maestro-helpers.js';
import { tickingClock } from '../support/clock.js';
import { removeTempDirs, tempDir as sharedTempDir } from '../support/temp.js';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
afterEach(removeTempDirs);
async function tempDir(): Promise<string> {
  return sharedTempDir('baton-maestro-out-');
}

function setup() {
  const now = tickingClock(T0);
  const m = new SessionManager({ store: new MemoryStore(), now, agent: 'tester', pid: 1, host: 'h' });
  const o = { cwd: process.cwd(), adapters: [maestroAdapter], now };
  return { m, o };
}

async function _readDoc(file: string): Promise<MaestroDocument> {
  const p = parseSessionText(await fs.readFile(file, 'utf8'));
  if (!p.ok) throw new Error(`${file}: ${p.reason}`);
  return p.doc;
}

function docOf(s: ForeignSession): MaestroDocument {
  return s.documents[s.path] as MaestroDocument;
}

function withoutUpdated(fm: Record<string, unknown>): Record<string, unknown> {
  const { updated: _u, ...rest } = fm;
  return rest;
}

/** import(fixture) → export → inspect: the foreign session read back from baton's files. */
async function roundTrip(name: string, pre?: (out: string) => Promise<void>) {
  const { m, o } = setup();
  const before = await inspect(name);
  const imp = await m.formats.import(path.join(FIXTURES, name), 'maestro', o);
  const out = await tempDir();
  if (pre) await pre(out);
  const results = [];
  for (const s of imp.sessions) {
    expect(s.action).toBe('created');
    results.push(await m.formats.export(s.id!, 'maestro', out, o));
  }
  const after = await inspect(out);
  return { m, o, before, after, out, results, imp };
}

describe('maestro export: import → export → inspect is lossless', () => {
  for (const name of [
    'mid-run-yaml',
    'mid-run-json',
    'interrupted-retry1',
    'interrupted-retry2',
    'completed-archived',
    'minimal-session',
    'express-mid-run',
    'express-review',
    'plan-traversal',
    'bad-values',
  ]) {
    it(`${name}: same facts, same unknown fields, same frontmatter flavour, body kept`, async () => {
      const { before, after } = await roundTrip(name);
      expect(after.sessions).toHaveLength(before.sessions.length);
      for (const b of before.sessions) {
        const a = after.sessions.find((s) => s.id === b.id)!;
        expect(a, `session ${b.id} read back`).toBeDefined();
        expect(facts(a)).toEqual(facts(b));
        const da = docOf(a);
        const db = docOf(b);
        expect(da.frontmatterFormat).toBe(db.frontmatterFormat);
        expect(withoutUpdated(da.frontmatter)).toEqual(withoutUpdated(db.frontmatter));
        // Nothing changed in baton since the import: `updated` is written back as it was (issue 14).
        expect(da.frontmatter.updated).toBe(db.frontmatter.updated);
        // No status changed: nothing appended, except a section for each phase the log showed
        // wrongly (STALE_COMPANION: the frontmatter wins, and the log is brought in line).
        const stale = b.problems.filter((p) => p.code === 'STALE_COMPANION').map((p) => String(p.details?.phase));
        expect(da.body.startsWith(stale.length ? db.body.replace(/\n*$/, '\n') : db.body)).toBe(true);
        const added = da.body.slice(db.body.length).match(/^## Phase (\S+):/gm) ?? [];
        expect(added).toEqual(stale.map((id) => `## Phase ${id}:`));
        if (!stale.length) expect(da.body).toBe(db.body);
        expect(a.problems.map((p) => p.code).filter((c) => c !== 'MISSING_PLAN')).toEqual(
          b.problems.map((p) => p.code).filter((c) => c !== 'STALE_COMPANION'),
        );
      }
    });
  }

  it('mid-run JSON: the design gate of the live session is written back next to it', async () => {
    const { out, results } = await roundTrip('mid-run-json');
    // The plans travel with the session (issue 14).
    expect(results[0]!.written.sort()).toEqual([
      'plans/2026-04-10-billing-export-design.md',
      'plans/2026-04-10-billing-export-impl-plan.md',
      'state/2026-04-10-billing-export.design-gate.json',
      'state/active-session.md',
    ]);
    const gate = JSON.parse(
      await fs.readFile(path.join(out, 'state/2026-04-10-billing-export.design-gate.json'), 'utf8'),
    );
    expect(gate).toEqual({
      session_id: '2026-04-10-billing-export',
      status: 'approved',
      design_document: 'plans/2026-04-10-billing-export-design.md',
      approved_at: '2026-04-10T07:55:00.000Z',
    });
    const text = await fs.readFile(path.join(out, 'state/active-session.md'), 'utf8');
    expect(text.startsWith('---\n{\n  "session_id": "2026-04-10-billing-export",')).toBe(true);
  });

  it('legacy "agent" comes back as the current "agents" list, with the same facts', async () => {
    const { before, after } = await roundTrip('legacy-agent');
    const a = only(after);
    expect(facts(a)).toEqual(facts(only(before)));
    expect(a.problems.some((p) => p.code === 'LEGACY_FIELD')).toBe(false);
    const phases = docOf(a).frontmatter.phases as Array<Record<string, unknown>>;
    expect(phases.map((p) => [p.agents, 'agent' in p])).toEqual([
      [['refactor'], false],
      [['tester'], false],
    ]);
  });

  it('tokens disagreeing stay disagreeing: the "(unattributed)" agent is not written', async () => {
    const { after, m } = await roundTrip('mid-run-json');
    const s = only(after);
    expect(s.tokens).toMatchObject({
      input: 12000,
      output: 5000,
      agrees: false,
      byAgent: { coder: { input: 9000, output: 4000, cached: 0 } },
    });
    const state = await m.get('2026-04-10-billing-export');
    expect(state.tokens.byAgent['(unattributed)']).toEqual({ input: 3000, output: 1000, cached: 0 });
  });

  for (const name of ['interrupted-retry1', 'mid-run-json', 'completed-archived', 'minimal-session']) {
    it(`${name}: import → export → import through the manager changes nothing in the baton session`, async () => {
      const { m, o, out, imp } = await roundTrip(name);
      const id = imp.sessions[0]!.id!;
      const first = await m.get(id);
      // The export folder holds the same session in another folder: --moved says so.
      const again = await m.formats.import(out, 'maestro', { ...o, moved: true });
      expect(again.sessions.map((s) => s.id)).toEqual([id]);
      expect(again.sessions[0]!.action).not.toBe('created');
      expect(again.sessions[0]!.problems.filter((p) => p.code === 'REIMPORT_DIVERGED')).toEqual([]);
      expect((await m.list({ all: true })).map((s) => s.id)).toEqual([id]);
      const second = await m.get(id);
      const view = (st: typeof first) => ({
        status: st.status,
        archived: st.archived,
        phases: st.phases.map((p) => ({
          id: p.id,
          status: p.status,
          retryCount: p.retryCount,
          agents: p.agents,
          files: p.files.map((f) => `${f.action}:${f.path}`),
          errors: p.errors.map((e) => [e.type, e.message, e.resolved, e.resolution]),
          metadata: p.metadata,
        })),
        tokens: st.tokens,
        artifacts: st.artifacts.map((a) => a.path),
      });
      expect(view(second)).toEqual(view(first));
    });
  }
});

describe('maestro export: write rules', () => {
  it('a completed/archived session is written to state/archive/<id>.md and its active file is removed', async () => {
    const { m, o } = setup();
    await m.formats.import(path.join(FIXTURES, 'completed-archived'), 'maestro', o);
    const out = await tempDir();
    // The output still holds the session as live (and its gate): Maestro's archive moves it.
    await fs.cp(
      path.join(FIXTURES, 'completed-archived/.gemini/state/archive/2026-01-20-cli-flags.md'),
      path.join(out, '.gemini/state/active-session.md'),
      { recursive: true },
    );
    await fs.writeFile(
      path.join(out, '.gemini/state/2026-01-20-cli-flags.design-gate.json'),
      '{"session_id":"2026-01-20-cli-flags","status":"approved"}',
    );
    const r = await m.formats.export('2026-01-20-cli-flags', 'maestro', out, o);
    // The plans travel with the session, into plans/archive/ as the archive leaves them (issue 14).
    expect(r.written).toEqual([
      '.gemini/state/archive/2026-01-20-cli-flags.md',
      '.gemini/plans/archive/2026-01-20-cli-flags-design.md',
      '.gemini/plans/archive/2026-01-20-cli-flags-impl-plan.md',
    ]);
    expect(r.removed.sort()).toEqual([
      '.gemini/state/2026-01-20-cli-flags.design-gate.json',
      '.gemini/state/active-session.md',
    ]);
    const after = await inspect(out);
    expect(after.problems).toEqual([]);
    expect(only(after)).toMatchObject({
      id: '2026-01-20-cli-flags',
      archived: true,
      rawStatus: 'completed',
      path: '.gemini/state/archive/2026-01-20-cli-flags.md',
    });
  });

  it('refuses (ACTIVE_EXISTS) to overwrite the active file of another session, and writes nothing', async () => {
    const { m, o } = setup();
    await m.formats.import(path.join(FIXTURES, 'mid-run-yaml'), 'maestro', o);
    const out = await copyCase('legacy-agent');
    const before = await fs.readFile(path.join(out, '.gemini/state/active-session.md'), 'utf8');
    const err = await m.formats.export('2026-03-01-auth-service', 'maestro', out, o).catch((e: unknown) => e);
    expect(isBatonError(err, 'ACTIVE_EXISTS')).toBe(true);
    expect((err as Error).message).toContain('2026-02-02-legacy');
    expect(await fs.readFile(path.join(out, '.gemini/state/active-session.md'), 'utf8')).toBe(before);
  });

  it('changes made in baton are written: retry, completion, resolution, files, tokens; the log gets a section per changed phase', async () => {
    const { m, o } = setup();
    await m.formats.import(path.join(FIXTURES, 'interrupted-retry1'), 'maestro', o);
    const id = '2026-02-14-search-index';
    const st0 = await m.get(id);
    const open = st0.phases.find((p) => p.id === '2')!.errors.find((e) => !e.resolved)!;
    await m.resolveError(id, open.id, 'raised the suite timeout to 900 s');
    await m.phase(id, '2', 'retry');
    await m.files(id, 'modified', ['package.json'], '2');
    await m.phase(id, '2', 'complete');
    await m.tokens(id, { agent: 'tester', phase: '2', input: 1000, output: 500, cached: 0 });
    const out = await tempDir();
    await m.formats.export(id, 'maestro', out, o);
    const s = only(await inspect(out));
    expect(s.units.map((u) => `${u.id}:${u.status}:${u.retries}`)).toEqual([
      '1:completed:0',
      '2:completed:2',
      '3:pending:0',
    ]);
    expect(s.unresolvedErrors).toEqual([]);
    expect(s.units[1]!.errors[1]).toMatchObject({ resolved: true, resolution: 'raised the suite timeout to 900 s' });
    expect(s.tokens).toMatchObject({ input: 21000, output: 9500, agrees: true });
    expect(s.tokens!.byAgent!.tester).toEqual({ input: 7000, output: 3500, cached: 0 });
    expect(s.resume).toMatchObject({ action: 'start', unitId: '3', lastCompleted: '2' });
    // The appended section brings the log in line (no STALE_COMPANION); the plans travelled with the session.
    expect(s.problems.map((p) => p.code)).toEqual([]);
    const doc = docOf(s);
    expect(doc.body.startsWith(docOf(only(await inspect('interrupted-retry1'))).body.replace(/\n*$/, '\n'))).toBe(true);
    expect(doc.body.match(/^## Phase 2: Query API ✓$/gm)).toHaveLength(1);
    expect(doc.body.match(/^## Phase 1: .*$/gm)).toEqual(['## Phase 1: Indexer ✓']); // unchanged phases get no new section
    expect(doc.body).not.toMatch(/^## Phase 3:/m);
    expect(s.units[1]!.files).toContainEqual({ path: 'package.json', action: 'modified' });
    // Exporting the same state again appends nothing more.
    await m.formats.export(id, 'maestro', out, o);
    expect(docOf(only(await inspect(out))).body).toBe(doc.body);
  });

  it('a log the toolkit appended to the exported file (mirror) survives the next export', async () => {
    const { m, o } = setup();
    await m.formats.import(path.join(FIXTURES, 'mid-run-yaml'), 'maestro', o);
    const id = '2026-03-01-auth-service';
    const out = await tempDir();
    await m.formats.export(id, 'maestro', out, o);
    const file = path.join(out, 'state/active-session.md');
    // The agent keeps working in Maestro: it appends to the log and adds a field of its own.
    const text = await fs.readFile(file, 'utf8');
    await fs.writeFile(
      file,
      text.replace('status: "in_progress"', 'status: "in_progress"\nreviewer_notes: "check token expiry"') +
        '\nThe coder finished the signer; tests next.\n',
    );
    await m.phase(id, '2', 'complete', { agent: 'coder' });
    await m.formats.export(id, 'maestro', out, o);
    const s = only(await inspect(out));
    expect(s.units.map((u) => u.status)).toEqual(['completed', 'completed', 'pending']);
    const doc = docOf(s);
    expect(doc.frontmatter.reviewer_notes).toBe('check token expiry');
    expect(doc.body).toContain('The coder finished the signer; tests next.\n');
    expect(doc.body.indexOf('The coder finished')).toBeLessThan(doc.body.indexOf('## Phase 2: Token service ✓'));
    expect(s.problems.filter((p) => p.code === 'STALE_COMPANION')).toEqual([]);
  });

  it('a session born in baton is written as a YAML seed-style session with a log section per started phase', async () => {
    const { m, o } = setup();
    const st = await m.start({
      title: 'Rate limiter',
      id: '2026-11-22-rate-limiter',
      phases: [
        { id: '1', name: 'Design', agents: ['architect'] },
        { id: '2', name: 'Build', agents: ['coder'], blockedBy: ['1'] },
        { id: '3', name: 'Docs', agents: ['technical-writer'], blockedBy: ['2'] },
      ],
    });
    await m.phase(st.id, '1', 'start', { agent: 'architect' });
    await m.phase(st.id, '1', 'complete', { agent: 'architect' });
    await m.phase(st.id, '2', 'start', { agent: 'coder' });
    await m.error(st.id, { phase: '2', type: 'runtime', message: 'redis not reachable', agent: 'coder' });
    await m.tokens(st.id, { agent: 'architect', input: 100, output: 40, cached: 5 });
    const out = await tempDir();
    const r = await m.formats.export(st.id, 'maestro', out, o);
    expect(r.written).toEqual(['state/active-session.md']);
    const text = await fs.readFile(path.join(out, 'state/active-session.md'), 'utf8');
    expect(text).toMatch(/^---\nsession_id: "2026-11-22-rate-limiter"\n/);
    const s = only(await inspect(out));
    expect(s).toMatchObject({
      id: '2026-11-22-rate-limiter',
      title: 'Rate limiter',
      rawStatus: 'in_progress',
      status: 'active',
    });
    expect(s.units.map((u) => [u.id, u.name, u.status, u.agents, u.blockedBy])).toEqual([
      ['1', 'Design', 'completed', ['architect'], []],
      ['2', 'Build', 'in_progress', ['coder'], ['1']],
      ['3', 'Docs', 'pending', ['technical-writer'], ['2']],
    ]);
    expect(s.unresolvedErrors.map((e) => [e.unitId, e.type, e.message, e.agent, e.resolution])).toEqual([
      ['2', 'runtime', 'redis not reachable', 'coder', null],
    ]);
    expect(s.tokens).toMatchObject({ input: 100, output: 40, cached: 5, agrees: true });
    expect(s.resume).toMatchObject({ action: 'continue', unitId: '2', lastCompleted: '1' });
    const fm = docOf(s).frontmatter;
    expect(fm).toMatchObject({ current_phase: 2, total_phases: 3, design_document: null, implementation_plan: null });
    expect((fm.phases as Array<Record<string, unknown>>)[1]!.errors).toEqual([
      expect.objectContaining({ resolution: 'pending', resolved: false }),
    ]);
    expect(docOf(s).body).toMatch(/# Rate limiter Orchestration Log/);
    expect(docOf(s).body.match(/^## Phase \S+: .*$/gm)).toEqual(['## Phase 1: Design ✓', '## Phase 2: Build ○']);
    // A completed phase that recorded no files is EMPTY_MANIFEST, info only (issue 27).
    expect(s.problems.filter((p) => p.code === 'EMPTY_MANIFEST').every((p) => p.severity === 'info')).toBe(true);
    expect(s.problems.filter((p) => p.code !== 'MISSING_PLAN' && p.code !== 'EMPTY_MANIFEST')).toEqual([]);
  });

  it('an export target reached through a link leading outside is refused by the core runner', async () => {
    const { m, o } = setup();
    await m.formats.import(path.join(FIXTURES, 'mid-run-yaml'), 'maestro', o);
    const out = await tempDir();
    const elsewhere = await tempDir();
    await fs.symlink(elsewhere, path.join(out, 'state'));
    const err = await m.formats.export('2026-03-01-auth-service', 'maestro', out, o).catch((e: unknown) => e);
    expect(isBatonError(err)).toBe(true);
    expect(await fs.readdir(elsewhere)).toEqual([]);
  });
});

describe('maestro export: SafeDir root variants', () => {
  it('exports into the state dir of a project root that has .gemini/state', async () => {
    const { m, o } = setup();
    await m.formats.import(path.join(FIXTURES, 'mid-run-yaml'), 'maestro', o);
    const out = await tempDir();
    await fs.mkdir(path.join(out, '.gemini/state'), { recursive: true });
    const r = await m.formats.export('2026-03-01-auth-service', 'maestro', out, o);
    expect(r.written).toEqual([
      '.gemini/state/active-session.md',
      '.gemini/plans/2026-03-01-auth-service-design.md',
      '.gemini/plans/2026-03-01-auth-service-impl-plan.md',
    ]);
    const dir = await SafeDir.open(out);
    expect(await maestroAdapter.detect(dir)).toBe(1);
  });
});

describe('maestro export: archiving moves the plans too', () => {
  it('a completed session exported over its live files moves design and plan to plans/archive/ (no ARCHIVE_COPIED)', async () => {
    const { m, o } = setup();
    const out = await tempDir();
    await fs.cp(path.join(FIXTURES, 'mid-run-yaml'), out, { recursive: true });
    const crlf = '# Design\r\n\r\nwith CRLF\r\n';
    await fs.writeFile(path.join(out, '.gemini/plans/2026-03-01-auth-service-design.md'), crlf);
    const imp = await m.formats.import(out, 'maestro', o);
    const id = imp.sessions[0]!.id!;
    await m.lifecycle(id, 'complete', null, { force: true });
    const r = await m.formats.export(id, 'maestro', out, o);
    expect(r.written.sort()).toEqual([
      '.gemini/plans/archive/2026-03-01-auth-service-design.md',
      '.gemini/plans/archive/2026-03-01-auth-service-impl-plan.md',
      '.gemini/state/archive/2026-03-01-auth-service.md',
    ]);
    expect(r.removed.sort()).toEqual([
      '.gemini/plans/2026-03-01-auth-service-design.md',
      '.gemini/plans/2026-03-01-auth-service-impl-plan.md',
      '.gemini/state/active-session.md',
    ]);
    expect(await fs.readFile(path.join(out, '.gemini/plans/archive/2026-03-01-auth-service-design.md'), 'utf8')).toBe(
      crlf,
    );
    const after = await inspect(out);
    const all = [...after.problems, ...after.sessions.flatMap((s) => s.problems)];
    expect(all.filter((p) => p.code === 'ARCHIVE_COPIED' || p.code === 'MISSING_PLAN')).toEqual([]);
    expect(only(after)).toMatchObject({ archived: true, rawStatus: 'completed' });
  });
});
