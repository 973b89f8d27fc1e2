/**
 * Live sync (docs/hooks.md, "Live sync"), the toolkit's own fields and dropped records: played
 * conversations through the real hook entry, as in mirror-live.test.ts. Fields baton does not
 * model (Maestro's `task_complexity` and a phase's `downstream_context`, CCW's
 * `quality_checks` and `state_transitions`) are merged three ways with baton's: a write from
 * a stale copy does not put back an older value, a field both sides changed keeps baton's and
 * is a conflict naming it, a field only the write changed is taken. A write that leaves out a
 * file baton holds for a unit is a loss (baton keeps it, the file is rewritten, the model
 * told), while a deletion the toolkit records (Maestro's `files_deleted`) is taken.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import type { SessionManager } from '../../src/manager/index.js';
import { hookInProcess } from './helpers.js';
import { A, agrees, B, contextOf, mirrored, payload } from './mirror-live-play.js';
import { BMIT, CCW, CCW_FILE, MAESTRO } from './mirror-live-toolkits.js';
import type { Doc, Toolkit } from './mirror-live-toolkits.js';

type Loss = { kind: string; message: string; field?: string };

/** Maestro's file: YAML frontmatter, then the log. */
const fm = {
  parse: (t: string): Doc => {
    const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(t)!;
    return { fm: YAML.parse(m[1]!) as Doc, body: m[2]! };
  },
  print: (d: Doc): string => `---\n${YAML.stringify(d['fm'])}---\n${d['body'] as string}`,
};
const json = { parse: (t: string): Doc => JSON.parse(t) as Doc, print: (d: Doc) => `${JSON.stringify(d, null, 2)}\n` };

/** A played conversation: each write is a CLI's file tool writing `file` from a copy, then its hook. */
async function conversation(t: Toolkit) {
  const { w, out, id } = await mirrored(t);
  const env = { BATON_SESSION: id, BATON_HOOK_AGENT_PID: String(process.pid), BATON_HOOK_KEEPER: 'off' };
  const read = (file: string) => fs.readFileSync(path.join(out, file), 'utf8');
  let conflicts = 0;
  return {
    w,
    out,
    id,
    read,
    /** `who` writes `text` to `file`; returns what it was told and the new conflict's losses (null: none). */
    async write(who: 'A' | 'B', file: string, text: string): Promise<{ told: string | null; lost: Loss[] | null }> {
      const cli = who === 'A' ? 'claude' : t.other;
      const abs = path.join(out, file);
      fs.writeFileSync(abs, text);
      const r = await hookInProcess(
        cli,
        JSON.stringify(payload(cli, who === 'A' ? A : B, w.dir, abs, text)),
        w.dir,
        env,
      );
      expect(r.code).toBe(0);
      const m = w.m();
      const recorded = (await m.log(id)).filter((e) => e.type === 'mirror.conflicted');
      await agrees(m, id, t, out, w.dir);
      await m.close();
      const told = contextOf(r.stdout);
      if (recorded.length === conflicts) {
        // Taken as written: the model's bytes stay.
        expect(read(file)).toBe(text);
        return { told, lost: null };
      }
      conflicts = recorded.length;
      expect(read(file), 'baton rewrote the file').not.toBe(text);
      const lost = (recorded.at(-1)!.data as { lost: Loss[] }).lost;
      for (const l of lost) expect(told).toContain(l.message);
      return { told, lost };
    },
    async manager(): Promise<SessionManager> {
      return w.m();
    },
  };
}

const FILE = 'state/active-session.md';
const DC = (over: Partial<Record<string, string[]>>) => ({
  key_interfaces_introduced: [],
  patterns_established: [],
  integration_points: [],
  assumptions: [],
  warnings: [],
  ...over,
});

describe('live sync: the toolkit fields baton does not model are merged three ways', () => {
  it('maestro: a stale write keeps neither an older task_complexity nor another downstream_context; a fresh one is taken', async () => {
    const c = await conversation(MAESTRO);
    const start = c.read(FILE);

    // A completes phase 2 with its handoff context (transition_phase), from the file as it is.
    const a1 = fm.parse(start);
    Object.assign(a1['fm'].phases[1], {
      status: 'completed',
      completed: '2026-11-28T10:10:00Z',
      files_created: ['src/token.ts'],
      downstream_context: DC({ key_interfaces_introduced: ['TokenService.issue()'] }),
    });
    Object.assign(a1['fm'].phases[2], { status: 'in_progress', started: '2026-11-28T10:11:00Z' });
    a1['fm'].current_phase = 3;
    const s1 = await c.write('A', FILE, fm.print(a1));
    expect(s1).toEqual({ told: null, lost: null });

    // B, from the start copy: tokens, a handoff context of its own for phase 2, and a field only it sets.
    const b1 = fm.parse(start);
    b1['fm'].token_usage.total_input += 1500;
    b1['fm'].token_usage.by_agent.coder.input += 1500;
    b1['fm'].phases[1].downstream_context = DC({ warnings: ['token TTL not agreed'] });
    b1['fm'].task_complexity = 'medium';
    const s2 = await c.write('B', FILE, fm.print(b1));
    expect(s2.told).toMatch(/stale copy/);
    const conflicts = s2.lost!.filter((l) => l.kind === 'field_conflict').map((l) => l.field);
    // Both changed phase 2's context: baton's kept, each field named.
    expect(conflicts).toEqual([
      'unit 2: downstream_context.key_interfaces_introduced',
      'unit 2: downstream_context.warnings',
    ]);
    expect(s2.told).toContain('unit 2: downstream_context.warnings was changed both in the session');
    // Only toolkit fields are named: the phases' status and tokens baton models are re-import's losses.
    expect(s2.lost!.filter((l) => l.kind.startsWith('field_')).map((l) => l.field)).toEqual(conflicts);
    expect(s2.lost!.map((l) => l.kind)).toContain('status_backwards');
    let f = fm.parse(c.read(FILE))['fm'];
    expect(f.phases[1].downstream_context).toEqual(DC({ key_interfaces_introduced: ['TokenService.issue()'] }));
    // What only the write changed is taken: its tokens, its new field.
    expect(f.task_complexity).toBe('medium');
    expect(f.token_usage.total_input).toBe(16500);

    // A again, from its own copy: without B's task_complexity (newer in baton), with phase 3's first file.
    const a2 = fm.parse(fm.print(a1));
    a2['fm'].phases[2].files_created = ['test/token.test.ts'];
    const s3 = await c.write('A', FILE, fm.print(a2));
    expect(s3.told).toMatch(/stale copy/);
    expect(s3.lost!.find((l) => l.kind === 'field_newer')).toMatchObject({
      field: `${FILE}: frontmatter.task_complexity`,
      message: `${FILE}: frontmatter.task_complexity is "medium" in the session, newer than your copy's (none) (kept)`,
    });
    f = fm.parse(c.read(FILE))['fm'];
    expect(f.task_complexity).toBe('medium');
    expect(f.phases[2].files_created).toEqual(['test/token.test.ts']);
    expect(f.phases[1].downstream_context.key_interfaces_introduced).toEqual(['TokenService.issue()']);

    // A reads the file again and edits phase 2's context: a fresh write, taken as written.
    const a3 = fm.parse(c.read(FILE));
    a3['fm'].phases[1].downstream_context.warnings = ['rotate signing keys'];
    a3['fm'].task_complexity = 'complex';
    expect(await c.write('A', FILE, fm.print(a3))).toEqual({ told: null, lost: null });

    // baton's next change rewrites the mirror: the model's latest fields stay.
    const m = await c.manager();
    expect((await m.get(c.id)).phases.find((p) => p.id === '2')!.metadata['downstream_context']).toEqual(
      DC({ key_interfaces_introduced: ['TokenService.issue()'], warnings: ['rotate signing keys'] }),
    );
    await m.phase(c.id, '3', 'complete');
    await m.derivedFiles.flush();
    const done = fs.existsSync(path.join(c.out, FILE))
      ? c.read(FILE)
      : fs.readFileSync(path.join(c.out, 'state/archive/2026-11-28-auth.md'), 'utf8');
    f = fm.parse(done)['fm'];
    expect(f.task_complexity).toBe('complex');
    expect(f.phases[1].downstream_context.warnings).toEqual(['rotate signing keys']);
    await m.close();
  }, 60_000);

  it('ccw: quality checks and state transitions of a stale write merge with baton’s, field by field', async () => {
    const c = await conversation(CCW);
    const start = c.read(CCW_FILE);

    // A finishes IMPLEMENT and starts REVIEW, lint passed.
    const a1 = json.parse(start);
    Object.assign(a1['checkpoints'].implement, {
      status: 'completed',
      agents_completed: ['code-developer'],
      current_agent: null,
      timestamp: '2026-11-28T10:20:00Z',
    });
    Object.assign(a1['checkpoints'].review, {
      status: 'in_progress',
      timestamp: '2026-11-28T10:21:00Z',
      quality_checks: { lint: 'passed' },
    });
    a1['current_phase'] = 'REVIEW';
    expect(await c.write('A', CCW_FILE, json.print(a1))).toEqual({ told: null, lost: null });

    // B, from the start copy, pauses the session, notes a pending check and a transition.
    const b1 = json.parse(start);
    b1['status'] = 'paused';
    b1['checkpoints'].review.quality_checks = { tests: 'pending' };
    b1['state_transitions'] = [
      { from: 'PLAN', to: 'IMPLEMENT', timestamp: '2026-11-28T08:40:00Z', trigger: 'plan_approved' },
    ];
    const s2 = await c.write('B', CCW_FILE, json.print(b1));
    expect(s2.told).toMatch(/stale copy/);
    // baton's lint result is newer than B's copy: kept; B's pending tests check is taken beside it.
    expect(s2.lost!.filter((l) => l.kind.startsWith('field_')).map((l) => [l.kind, l.field])).toEqual([
      ['field_newer', 'unit review: quality_checks.lint'],
    ]);
    let d = json.parse(c.read(CCW_FILE));
    expect(d['checkpoints'].review.quality_checks).toEqual({ lint: 'passed', tests: 'pending' });
    expect(d['state_transitions']).toEqual(b1['state_transitions']);
    expect(d['status']).toBe('paused');

    // A again from its own copy: B's transition is newer in baton; both set the tests check.
    const a2 = json.parse(json.print(a1));
    a2['checkpoints'].review.quality_checks = { lint: 'passed', tests: 'passed' };
    const s3 = await c.write('A', CCW_FILE, json.print(a2));
    expect(s3.told).toMatch(/stale copy/);
    expect(s3.lost!.filter((l) => l.kind.startsWith('field_')).map((l) => [l.kind, l.field])).toEqual([
      ['field_conflict', 'unit review: quality_checks.tests'],
      ['field_newer', `${CCW_FILE}: state_transitions`],
    ]);
    expect(s3.told).toContain(
      'unit review: quality_checks.tests was changed both in the session ("pending", kept) and by your write ("passed")',
    );
    d = json.parse(c.read(CCW_FILE));
    expect(d['checkpoints'].review.quality_checks).toEqual({ lint: 'passed', tests: 'pending' });
    expect(d['state_transitions']).toEqual(b1['state_transitions']);
    const m = await c.manager();
    const conflicted = (await m.log(c.id)).filter((e) => e.type === 'mirror.conflicted').at(-1)!;
    expect(conflicted.data).toMatchObject({ format: 'ccw', path: CCW_FILE, agent: 'claude' });
    await m.close();
  }, 60_000);
});

describe('live sync: a write that leaves out records baton holds', () => {
  it('maestro: files of a phase left out are kept and the writer told; a file moved to files_deleted is taken', async () => {
    const c = await conversation(MAESTRO);
    // The model rewrites the file from its own idea of phase 1: schema.sql is no longer listed.
    const a1 = fm.parse(c.read(FILE));
    a1['fm'].phases[0].files_created = [];
    a1['fm'].phases[0].files_modified = ['db/seed.sql'];
    const s1 = await c.write('A', FILE, fm.print(a1));
    expect(s1.told).toMatch(/stale copy/);
    expect(s1.lost).toEqual([
      { kind: 'file_removed', message: 'unit 1 holds file db/schema.sql (created); your write left it out' },
    ]);
    expect(s1.told).toMatch(/rewrote state\/active-session\.md/);
    let f = fm.parse(c.read(FILE))['fm'];
    expect(f.phases[0].files_created).toEqual(['db/schema.sql']);
    // What was new in the write is still taken.
    expect(f.phases[0].files_modified).toEqual(['db/seed.sql']);

    // Maestro records a deleted file in files_deleted: taken as the toolkit's deletion.
    const a2 = fm.parse(c.read(FILE));
    a2['fm'].phases[0].files_created = [];
    a2['fm'].phases[0].files_deleted = ['db/schema.sql'];
    expect(await c.write('A', FILE, fm.print(a2))).toEqual({ told: null, lost: null });
    const m = await c.manager();
    const files = (await m.get(c.id)).phases[0]!.files.filter((x) => x.path === 'db/schema.sql');
    expect(files.at(-1)!.action).toBe('deleted');
    f = fm.parse(c.read(FILE))['fm'];
    expect(f.phases[0].files_deleted).toEqual(['db/schema.sql']);
    expect(f.phases[0].files_created).toEqual([]);
    await m.close();
  }, 60_000);

  it('bmit: an open finding the writer saw and removed is closed (bmit closes findings so); one added since its copy is kept', async () => {
    const BFILE = 'shop/00-session-state.json';
    const doc = json.parse(BMIT.files[BFILE]!);
    doc['open_findings'] = [
      { message: 'No backup policy for Cosmos DB', severity: 'must_fix', step: 2, timestamp: '2026-11-28T10:05:00Z' },
    ];
    const c = await conversation({ ...BMIT, files: { [BFILE]: json.print(doc) } });
    const start = c.read(BFILE);
    // Meanwhile another agent records a finding through baton: the mirror lists both.
    let m = await c.manager();
    await m.finding(c.id, { text: 'Key Vault soft delete is off' });
    await m.derivedFiles.flush();
    await m.close();
    expect(json.parse(c.read(BFILE))['open_findings']).toHaveLength(2);

    // A, from the copy it read before: the challenger's finding is resolved, so A removes it.
    const a1 = json.parse(start);
    a1['open_findings'] = [];
    const s1 = await c.write('A', BFILE, json.print(a1));
    expect(s1.told).toMatch(/stale copy/);
    expect(s1.lost).toEqual([
      { kind: 'finding_removed', message: '1 open finding(s) added since your copy are not in your write; kept open' },
    ]);
    m = await c.manager();
    const open = (await m.get(c.id)).findings.filter((f) => !f.removed).map((f) => f.text);
    expect(open).toEqual(['Key Vault soft delete is off']);
    await m.close();
    expect(
      json.parse(c.read(BFILE))['open_findings'].map((f: Doc | string) => (typeof f === 'string' ? f : f['message'])),
    ).toEqual(['Key Vault soft delete is off']);

    // A reads the file again and removes the other one: taken as written.
    const a2 = json.parse(c.read(BFILE));
    a2['open_findings'] = [];
    expect(await c.write('A', BFILE, json.print(a2))).toEqual({ told: null, lost: null });
    m = await c.manager();
    expect((await m.get(c.id)).findings.filter((f) => !f.removed)).toEqual([]);
    await m.close();
  }, 60_000);
});
