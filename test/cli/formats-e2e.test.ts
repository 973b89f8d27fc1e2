/**
 * The foreign layouts through the real, built CLI (`dist/baton.cjs`), for every adapter in the
 * registry and every fixture case it ships: inspect detects the layout and never crashes,
 * inspect and import leave the folder byte-for-byte and mtime-for-mtime unchanged, import
 * twice is `unchanged` the second time, and import → export → inspect keeps the facts for the
 * healthy cases; a session born in baton exports into each layout and reads back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/formats/registry.js';
import type { ForeignSession } from '../../src/formats/types.js';
import { snapshotTree } from '../formats/core-helpers.js';
import { EXIT_CODES, ROOT, workspace } from './helpers.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'formats');

/** Cases whose every fact survives import → export → inspect (the others lose something on purpose, e.g. a migration). */
const ROUND_TRIP: Record<string, string[]> = {
  maestro: ['mid-run-yaml', 'interrupted-retry1', 'completed-archived', 'express-mid-run'],
  'go-team': ['completed', 'interrupted-string', 'rolled-back', 'failed'],
  bmit: ['mid-run', 'substep', 'completed'],
  bmad: ['active', 'paused', 'closed-archived', 'legacy-tokens'],
  ccw: ['archive-copied'],
};

function cases(format: string): string[] {
  const dir = path.join(FIXTURES, format);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((c) => fs.statSync(path.join(dir, c)).isDirectory())
    .sort();
}

function copyTree(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

/** The facts a round trip must keep. */
function facts(s: ForeignSession) {
  return {
    id: s.id,
    title: s.title,
    status: s.status,
    archived: s.archived,
    units: s.units.map((u) => ({
      id: u.id,
      name: u.name,
      status: u.status,
      subStep: u.subStep,
      retries: u.retries,
      agents: u.agents,
      files: u.files,
      errors: u.errors,
      metadata: u.metadata,
    })),
    unresolved: s.unresolvedErrors,
    tokens: s.tokens,
    decisions: s.decisions,
    findings: s.findings,
    notes: s.notes,
    milestones: s.milestones,
    artifacts: s.artifacts,
    contextSummary: s.contextSummary,
  };
}

interface InspectJson {
  format: string | null;
  sessions: ForeignSession[];
  problems: Array<{ code: string; severity: string }>;
}

interface ImportJson {
  format: string;
  sessions: Array<{
    foreignId: string;
    id: string | null;
    action: string;
    problems: Array<{ code: string; severity: string }>;
  }>;
}

/**
 * Runs an import that must work without a diagnostic on stderr; its exit is 10 exactly when
 * the report holds an error-severity problem or nothing was imported (docs/cli.md), else 0.
 */
async function importJson(ws: ReturnType<typeof workspace>, args: string[]): Promise<ImportJson> {
  const r = await ws.run(args);
  expect(r.stderr).toBe('');
  const j = JSON.parse(r.stdout) as ImportJson & { problems: Array<{ severity: string }> };
  const failed =
    [...j.problems, ...j.sessions.flatMap((s) => s.problems)].some((p) => p.severity === 'error') ||
    !j.sessions.some((s) => s.action !== 'skipped');
  expect(r.code).toBe(failed ? EXIT_CODES.CORRUPT : 0);
  return j;
}

for (const adapter of ADAPTERS) {
  const format = adapter.name;
  // Each case spawns the CLI a few times in its own workspace: they run side by side.
  describe.concurrent(`${format} through the CLI`, () => {
    for (const c of cases(format)) {
      it(`${c}: inspect detects ${format}, inspect and import change nothing, a second import is unchanged`, async () => {
        const ws = workspace();
        const src = ws.path('src');
        copyTree(path.join(FIXTURES, format, c), src);
        const before = snapshotTree(src);
        const r = await ws.run(['inspect', 'src', '--json']);
        expect([0, EXIT_CODES.CORRUPT], r.stderr).toContain(r.code);
        const report = JSON.parse(r.stdout) as InspectJson;
        expect(report.format).toBe(format);
        const hasError = [...report.problems, ...report.sessions.flatMap((s) => s.problems)].some(
          (p) => p.severity === 'error',
        );
        expect(r.code).toBe(hasError ? EXIT_CODES.CORRUPT : 0);
        const human = await ws.run(['inspect', 'src']);
        expect(human.code).toBe(r.code);
        for (const s of report.sessions) expect(human.stdout).toContain(`Session ${s.id}`);
        const imp = await ws.run(['import', 'src', '--json']);
        // As inspect: a folder with an error-severity problem (or nothing in it) exits 10.
        expect(imp.code, imp.stderr).toBe(hasError || report.sessions.length === 0 ? EXIT_CODES.CORRUPT : 0);
        const first = JSON.parse(imp.stdout) as ImportJson;
        expect(first.format).toBe(format);
        expect(first.sessions.filter((s) => s.action === 'created').length).toBeGreaterThanOrEqual(
          report.sessions.length > 0 ? 1 : 0,
        );
        for (const s of first.sessions) expect(['created', 'skipped']).toContain(s.action);
        const second = await ws.run(['import', 'src', '--json']);
        expect(second.code, second.stderr).toBe(imp.code);
        const again = JSON.parse(second.stdout) as ImportJson;
        for (const s of again.sessions) expect(s.action === 'unchanged' || s.action === 'skipped').toBe(true);
        expect(snapshotTree(src)).toEqual(before);
      });
    }

    for (const c of ROUND_TRIP[format] ?? []) {
      if (!cases(format).includes(c)) continue;
      it(`${c}: import → export → inspect keeps every fact`, async () => {
        const ws = workspace();
        copyTree(path.join(FIXTURES, format, c), ws.path('src'));
        const original = JSON.parse(
          (await ws.run(['inspect', '--format', format, 'src', '--json'])).stdout,
        ) as InspectJson;
        const imp = await importJson(ws, ['import', '--format', format, 'src', '--json']);
        const created = imp.sessions.filter((s) => s.action === 'created');
        expect(created.length).toBeGreaterThan(0);
        for (const s of created) {
          const ex = JSON.parse(
            (await ws.ok(['export', '--format', format, '--session', s.id!, '--out', 'out', '--json'])).stdout,
          ) as { written: string[] };
          expect(ex.written.length).toBeGreaterThan(0);
        }
        const back = JSON.parse((await ws.run(['inspect', '--format', format, 'out', '--json'])).stdout) as InspectJson;
        for (const s of created) {
          const a =
            original.sessions.find((x) => x.id === s.foreignId && !x.archived) ??
            original.sessions.find((x) => x.id === s.foreignId)!;
          const b = back.sessions.find((x) => x.id === s.foreignId);
          expect(b, `session ${s.foreignId} after export`).toBeDefined();
          expect(facts(b!)).toEqual(facts(a));
        }
      });
    }

    const LOOP: Record<string, string> = {
      maestro: 'mid-run-yaml',
      'go-team': 'mid-run',
      bmit: 'mid-run',
      bmad: 'paused',
      ccw: 'markers',
    };
    if (LOOP[format] && cases(format).includes(LOOP[format]!)) {
      it(`${LOOP[format]}: import, mirror into the same folder, change in baton, import again: only the provenance is new`, async () => {
        const ws = workspace();
        copyTree(path.join(FIXTURES, format, LOOP[format]!), ws.path('src'));
        const imp = await importJson(ws, ['import', '--format', format, 'src', '--json']);
        const id = imp.sessions.find((s) => s.action === 'created')!.id!;
        const st = await ws.status(id);
        if (st.status !== 'active') await ws.ok(['switch', id]);
        await ws.ok(['mirror', format, '--out', 'src', '--session', id]);
        await ws.ok(['note', 'add', 'written in baton', '--session', id]);
        // (stderr may carry a budget warning: the imported session may be near its budget)
        expect((await ws.run(['tokens', 'add', '--agent', 'baton-agent', '--input', '10', '--session', id])).code).toBe(
          0,
        );
        const before = await ws.status(id);
        const again = await importJson(ws, ['import', '--format', format, 'src', '--json']);
        const r = again.sessions.find((s) => s.id === id)!;
        expect(r.action).toBe('updated');
        // Only notes may be missing from a layout that keeps none (info); nothing else diverges.
        expect(r.problems.filter((p) => p.code === 'REIMPORT_DIVERGED' && p.severity !== 'info')).toEqual([]);
        const added = (await ws.log(id)).filter((e) => e.seq > before.revision);
        // The toolkit's rules as they apply to the files baton wrote may be recorded again (issue 14); no work event is new.
        expect(added.map((e) => [e.type, e.data['key']]).filter(([, k]) => k !== 'toolkitRules')).toEqual([
          ['metadata.set', 'provenance'],
        ]);
        const after = await ws.status(id);
        expect(after.tokens.input).toBe(before.tokens.input);
      });
    }

    it('a session born in baton exports into the layout and reads back with its facts', async () => {
      // Go Team and bmit run fixed steps: a plan exports there when its phases are those steps
      // (docs/formats/<layout>.md "Export"); the others take any phases.
      const phases =
        format === 'go-team'
          ? ['init', 'requirements', 'architecture']
          : format === 'bmit'
            ? ['requirements', 'architecture', 'design']
            : ['plan', 'build', 'test'];
      const ws = workspace();
      await ws.ok(['start', 'Born here', '--id', 'born-1', '--phases', phases.join(',')]);
      await ws.ok(['phase', 'start', phases[0]!]);
      await ws.ok(['phase', 'complete', phases[0]!]);
      await ws.ok(['phase', 'start', phases[1]!]);
      await ws.ok(['tokens', 'add', '--agent', 'coder', '--input', '1200', '--output', '300']);
      const ex = await ws.run(['export', '--format', format, '--out', 'out', '--json']);
      expect(ex.code, ex.stderr).toBe(0);
      // What the layout cannot hold is said on stderr (BMAD: the phase not started; CCW: tokens).
      if (format === 'bmad' || format === 'ccw') expect(ex.stderr).toContain('NOT_REPRESENTED');
      const id = format === 'ccw' ? 'WFS-born-1' : 'born-1'; // a CCW id names its folder
      const back = JSON.parse((await ws.run(['inspect', '--format', format, 'out', '--json'])).stdout) as InspectJson;
      const s = back.sessions.find((x) => x.id === id);
      expect(s, JSON.stringify(back.problems)).toBeDefined();
      // Fixed-step layouts add their own pending steps; BMAD records no agent for a phase not started.
      const statuses = s!.units.map((u) => u.status).filter((x) => x !== 'pending');
      expect(statuses).toEqual(['completed', 'in_progress']);
      if (format !== 'bmad') expect(s!.units.filter((u) => u.status === 'pending').length).toBeGreaterThanOrEqual(1);
      // Layouts that keep no token counts (ccw) read back none.
      // BMAD keeps one running total (no input/output split).
      if (s!.tokens !== null && format === 'bmad') expect(s!.tokens.input + s!.tokens.output).toBe(1500);
      else if (s!.tokens !== null) expect([s!.tokens.input, s!.tokens.output]).toEqual([1200, 300]);
      // And it imports back as the same session (its provenance is not that layout: --id-prefix).
      const imp = JSON.parse(
        (await ws.run(['import', '--format', format, 'out', '--id-prefix', 'back-', '--json'])).stdout,
      ) as ImportJson;
      expect(imp.sessions.map((x) => [x.id, x.action])).toContainEqual([`back-${id}`, 'created']);
      const st = JSON.parse((await ws.ok(['status', '--session', `back-${id}`, '--json'])).stdout) as {
        phases: Array<{ status: string }>;
      };
      expect(st.phases.map((p) => p.status).filter((x) => x !== 'pending')).toEqual(['completed', 'in_progress']);
    });
  });
}

describe('formats through the CLI', () => {
  it('every registered layout is tested here (a fixture folder exists)', () => {
    for (const a of ADAPTERS) expect(cases(a.name).length, a.name).toBeGreaterThan(0);
  });
});
