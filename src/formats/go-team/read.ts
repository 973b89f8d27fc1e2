/**
 * Reads a Go Team checkpoints tree (registry `sessions.json`, one folder per session with
 * `manifest.json`, `state.json`, `recovery.json`, `cp-*.json`, `rollback-history.json`)
 * into {@link ForeignSession}s. Lenient: every damaged or inconsistent thing becomes a
 * {@link FormatProblem}; nothing is written.
 */
import type { SafeDir } from '../safe-dir.js';
import type { InspectReport } from '../types.js';
import { arr, obj, problem, str } from '../util.js';
import { join, locate } from './layout.js';
import { Ctx, load } from './load.js';
import { readMetrics } from './session-files.js';
import { readSession } from './session.js';

/** The registry's sessions by id (first entry wins) and the ids it marks active; damage is reported. */
function registryEntries(
  ctx: Ctx,
  regPath: string,
  registry: Record<string, unknown> | null,
): { entries: Map<string, Record<string, unknown>>; rawActive: string[] } {
  const entries = new Map<string, Record<string, unknown>>();
  const rawActive: string[] = [];
  if (registry) {
    if (!Array.isArray(registry.sessions)) {
      ctx.problems.push(
        problem(
          registry.sessions === undefined ? 'MISSING_FIELD' : 'BAD_VALUE',
          'error',
          `${regPath} has no sessions[] list.`,
          { path: regPath, details: { field: 'sessions', assumed: [] } },
        ),
      );
    }
    if (registry.version === undefined)
      ctx.problems.push(
        problem('MISSING_FIELD', 'info', `${regPath} has no version; 1.0.0 assumed.`, {
          path: regPath,
          details: { field: 'version', assumed: '1.0.0' },
        }),
      );
    arr(registry.sessions).forEach((e, i) => {
      const id = str(obj(e).id);
      if (id === null || id === '') {
        ctx.problems.push(
          problem('BAD_VALUE', 'warning', `Entry ${i} of ${regPath} has no id; it was skipped.`, {
            path: regPath,
            details: { index: i },
          }),
        );
        return;
      }
      if (entries.has(id)) {
        ctx.problems.push(
          problem('BAD_VALUE', 'warning', `Session ${id} is listed twice in ${regPath}; the first entry is used.`, {
            path: regPath,
            sessionId: id,
          }),
        );
        return;
      }
      entries.set(id, obj(e));
      if (str(obj(e).status) === 'active') rawActive.push(id);
    });
  }
  return { entries, rawActive };
}

/** Reads every session of the tree under `dir`. */
export async function inspectTree(dir: SafeDir, now: Date): Promise<InspectReport> {
  const found = await locate(dir);
  const report: InspectReport = { format: 'go-team', root: dir.root, sessions: [], problems: [] };
  if (!found) {
    report.problems.push(
      problem(
        'UNKNOWN_FORMAT',
        'error',
        'No Go Team checkpoints folder (sessions.json or <session>/manifest.json) was found.',
        {
          hint: 'Give the checkpoints/ folder, the go-team folder holding it, or a project root holding .claude/agents/microai/teams/go-team/checkpoints/.',
        },
      ),
    );
    return report;
  }
  const ctx = new Ctx(dir, found, now);
  const regPath = join(found.cp, 'sessions.json');
  const reg = await load(ctx, regPath, null, ctx.problems, {
    missing: problem(
      'MISSING_FILE',
      'warning',
      `The registry ${regPath} is missing; sessions were read from their folders.`,
      { path: regPath, hint: 'Export the sessions with baton to write a registry, or restore it from git.' },
    ),
  });
  const registry = reg.doc;
  const { entries, rawActive } = registryEntries(ctx, regPath, registry);
  const lastActive = registry ? str(registry.last_active_session) : null;

  // Session folders; links leading outside PATH are reported and not followed.
  const folders = new Map<string, 'ok' | 'unsafe'>();
  for (const e of await dir.list(found.cp)) {
    if (e.kind !== 'dir' && e.kind !== 'link') continue;
    if (e.kind === 'link') {
      const c = await dir.check(e.path);
      if (!c.ok) {
        ctx.problems.push({ ...c.problem, sessionId: e.name });
        folders.set(e.name, 'unsafe');
        continue;
      }
    }
    folders.set(e.name, 'ok');
  }
  const ids = [...entries.keys()];
  for (const [name, k] of folders) {
    if (entries.has(name) || k === 'unsafe') continue;
    const hasSessionFiles =
      (await dir.exists(join(found.cp, name, 'manifest.json'))) ||
      (await dir.exists(join(found.cp, name, 'state.json'))) ||
      (await dir.list(join(found.cp, name))).some((f) => /^cp-.*\.json$/.test(f.name));
    if (!hasSessionFiles) continue;
    if (registry) {
      ctx.problems.push(
        problem(
          'ORPHAN_SESSION',
          'warning',
          `The folder ${join(found.cp, name)} holds a session that ${regPath} does not list; Go Team will not offer it for resume.`,
          {
            sessionId: name,
            path: join(found.cp, name),
            hint: 'Import it with baton and export it to add it to the registry, or delete the folder.',
          },
        ),
      );
    }
    ids.push(name);
  }

  const metrics = found.team !== null ? await readMetrics(ctx, found.team) : null;
  for (const id of ids) {
    report.sessions.push(
      await readSession(
        ctx,
        id,
        entries.get(id) ?? null,
        regPath,
        reg,
        registry,
        folders.get(id) ?? null,
        lastActive,
        metrics,
      ),
    );
  }

  if (rawActive.length > 1) {
    ctx.problems.push(
      problem(
        'TWO_ACTIVE',
        'error',
        `${rawActive.length} sessions are "active" in ${regPath}: ${rawActive.join(', ')}; Go Team runs one at a time.`,
        {
          path: regPath,
          details: { sessions: rawActive, lastActive },
          hint: `Keep ${lastActive && rawActive.includes(lastActive) ? lastActive : 'the one you work on'} active and mark the other(s) interrupted or paused (baton reports the stale ones as interrupted).`,
        },
      ),
    );
  }
  if (lastActive !== null && !entries.has(lastActive)) {
    const folder = folders.has(lastActive);
    ctx.problems.push(
      problem(
        'DANGLING_ACTIVE',
        'error',
        `last_active_session names ${lastActive}, which ${regPath} does not list${folder ? ' (its folder exists but is unregistered)' : ' and which has no folder'}.`,
        {
          path: regPath,
          details: { lastActive, folder },
          hint: "Go Team's *resume would find nothing: set last_active_session to an existing session (or null), e.g. by exporting the session you continue with baton.",
        },
      ),
    );
  }
  report.problems.push(...ctx.problems);
  return report;
}
