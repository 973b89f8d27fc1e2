import fs from 'node:fs';
import path from 'node:path';
import { BatonError, isBatonError } from '../../domain/errors.js';
import { hint } from '../../domain/hints.js';
import type { Actor, NewEvent } from '../../domain/events.js';
import type { OnProgress } from '../progress.js';
import { validateId } from '../../domain/ids.js';
import type { SessionState } from '../../domain/state.js';
import { detect, detectionError, namedAdapter } from '../../formats/detect.js';
import type { DetectScore } from '../../formats/detect.js';
import { batonIdFor, importEvents, provenanceOf } from '../../formats/import.js';
import { reimportEvents } from '../../formats/reimport.js';
import { SafeDir } from '../../formats/safe-dir.js';
import type { ForeignSession, FormatAdapter, FormatName, FormatProblem, InspectReport } from '../../formats/types.js';
import { saveImportedCheckpoints } from '../checkpoints/import-checkpoints.js';
import type { ManagerCore as SessionManager } from '../types.js';
import { MIRROR_ERROR_KEY, MIRROR_KEY, mirrorOf, writeMirrorRecord } from './mirror.js';
import type { MirrorRecord, MirrorSetting } from './mirror.js';
import { adaptersOf } from './formats-export.js';
import type { FormatsOptions } from './formats-export.js';

export { MIRROR_ERROR_KEY, MIRROR_KEY, mirrorOf };
export { checkMirrorSetting, exportInto, mirrorSession, openOut, rewriteOnce } from './formats-export.js';
export type { ExportOptions, ExportResult, FormatsOptions } from './formats-export.js';
export type { MirrorRecord, MirrorSetting };

/** The same folder, links resolved when it exists (a mirror's `out` is kept unresolved). */
function sameFolder(a: string, b: string): boolean {
  const real = (p: string): string => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}

/*
 * Importing a session from its own mirror folder takes the toolkit's changes into baton, so
 * what baton wrote there no longer matters: forgetting it lets the mirror resume (the next
 * rewrite writes baton's state, which now includes those changes).
 */
async function resumeMirror(m: SessionManager, id: string, format: FormatName, root: string): Promise<void> {
  const state = await m.get(id);
  const setting = mirrorOf(state);
  if (setting && setting.format === format && sameFolder(setting.out, root))
    await writeMirrorRecord(m, id, state, null);
}

/** Result of {@link inspectFolder}. */
export interface InspectResult {
  /** The layout read; null when auto-detection found none (see problems). */
  format: FormatName | null;
  root: string;
  /** Detection scores with `--format auto`, else null. */
  detection: DetectScore[] | null;
  sessions: ForeignSession[];
  problems: FormatProblem[];
}

async function readTree(adapter: FormatAdapter, dir: SafeDir, now: Date): Promise<InspectReport> {
  try {
    return await adapter.inspect(dir, now);
  } catch (e) {
    throw new BatonError(
      'INTERNAL',
      `The ${adapter.name} reader failed on ${dir.root}: ${(e as Error)?.message ?? String(e)}`,
      {
        hint: 'This is a bug in baton (readers report damage, they do not fail); please report it with the folder.',
        cause: e,
      },
    );
  }
}

/** The adapter for `format` (`auto`: detected) on `dir`; with `lenient`, a failed detection is returned instead of thrown. */
async function pick(
  dir: SafeDir,
  format: string,
  o: FormatsOptions,
): Promise<
  | { adapter: FormatAdapter; scores: DetectScore[] | null }
  | { adapter: null; scores: DetectScore[]; problem: FormatProblem }
> {
  const adapters = adaptersOf(o);
  if (format !== 'auto') return { adapter: namedAdapter(format, adapters), scores: null };
  const d = await detect(dir, adapters);
  if (d.kind === 'found') return { adapter: d.adapter, scores: d.scores };
  return { adapter: null, scores: d.scores, problem: d.problem };
}

/** The problem of a named layout under which nothing at all was found. */
function nothingFound(format: FormatName, root: string): FormatProblem {
  return {
    code: 'UNKNOWN_FORMAT',
    severity: 'error',
    sessionId: null,
    path: null,
    message: `No ${format} session was found in ${root}.`,
    hint: "Check the folder (the layout's root, e.g. the one holding its state folder), or try --format auto.",
  };
}

/**
 * Reads every session under `dir` in `format` (or `auto`) without modifying anything. A
 * folder in which auto-detection finds no clear layout yields an `UNKNOWN_FORMAT` problem,
 * as does a named layout under which nothing at all was found.
 */
export async function inspectFolder(dir: string, format: string, o: FormatsOptions): Promise<InspectResult> {
  const root = await SafeDir.open(dir, o.cwd);
  const p = await pick(root, format, o);
  if (!p.adapter) return { format: null, root: root.root, detection: p.scores, sessions: [], problems: [p.problem] };
  const report = await readTree(p.adapter, root, (o.now ?? (() => new Date()))());
  const problems = [...report.problems];
  if (report.sessions.length === 0 && problems.length === 0) problems.push(nothingFound(p.adapter.name, root.root));
  return { format: p.adapter.name, root: root.root, detection: p.scores, sessions: report.sessions, problems };
}

/** What import did with one foreign session. */
export interface ImportedSession {
  foreignId: string;
  /** baton id (null when skipped before one was chosen). */
  id: string | null;
  action: 'created' | 'updated' | 'unchanged' | 'skipped';
  revision: number | null;
  archived: boolean;
  /** Read problems of the session plus the import's own notes (REIMPORT_DIVERGED, …). */
  problems: FormatProblem[];
}

/**
 * Result of {@link importFolder}. Nothing found under a named layout is an `UNKNOWN_FORMAT`
 * error in `problems`; a session that could not be written is `skipped` with an
 * `IMPORT_FAILED` error (see foreign-formats.ts `importIsIncomplete`).
 */
export interface ImportResult {
  format: FormatName;
  root: string;
  sessions: ImportedSession[];
  /** Problems of the tree as a whole. */
  problems: FormatProblem[];
}

/** Options of {@link importFolder}. */
export interface ImportOptions extends FormatsOptions {
  /** Put before every baton id (to import next to sessions with the same ids). */
  idPrefix?: string;
  /**
   * The folder is the one imported before, moved: a session imported from the same foreign
   * session in another folder is brought forward (and its provenance now names this folder)
   * instead of being refused.
   */
  moved?: boolean;
  agent?: string | null;
  /** Told before the first session is imported and after each one (see progress.ts). */
  onProgress?: OnProgress;
}

/**
 * Why the existing baton session `existing` may not take foreign session `s` from `root`
 * (text for the EXISTS message), or null when it may: it was imported from that session of
 * that layout in that same folder (elsewhere only with `moved`), or `s` is the session's own
 * mirror (the toolkit's changes to a mirrored file come back this way).
 */
function clashOf(
  existing: SessionState,
  s: ForeignSession,
  root: string,
  moved: boolean,
): { text: string; otherFolder: boolean } | null {
  const prov = provenanceOf(existing);
  const mirror = mirrorOf(existing);
  if (mirror && mirror.format === s.format && sameFolder(mirror.out, root)) {
    const mirroredId = prov && prov.format === s.format ? prov.foreignId : existing.id;
    if (mirroredId === s.id) return null;
  }
  if (!prov) return { text: `${existing.id} (not imported)`, otherFolder: false };
  if (prov.format !== s.format || prov.foreignId !== s.id)
    return { text: `${existing.id} (imported from ${prov.format} session ${prov.foreignId})`, otherFolder: false };
  if (!moved && typeof prov.root === 'string' && !sameFolder(prov.root, root))
    return {
      text: `${existing.id} (imported from ${prov.format} session ${prov.foreignId} in ${prov.root}, another folder)`,
      otherFolder: true,
    };
  return null;
}

/** The live copy first: an archive copied instead of moved yields the same id twice. */
function choose(sessions: ForeignSession[]): {
  keep: ForeignSession[];
  dropped: Array<{ s: ForeignSession; problem: FormatProblem }>;
} {
  const byId = new Map<string, ForeignSession[]>();
  for (const s of sessions) byId.set(s.id, [...(byId.get(s.id) ?? []), s]);
  const keep: ForeignSession[] = [];
  const dropped: Array<{ s: ForeignSession; problem: FormatProblem }> = [];
  for (const [, group] of byId) {
    const first = group.find((s) => !s.archived) ?? group[0]!;
    keep.push(first);
    for (const s of group) {
      if (s === first) continue;
      dropped.push({
        s,
        problem: {
          code: 'DUPLICATE_SESSION',
          severity: 'warning',
          sessionId: s.id,
          path: s.path,
          message: `Session ${s.id} is also at ${first.path}; that copy (${first.archived ? 'archived' : 'live'}) was imported, this one skipped.`,
          hint: 'Remove the stale copy in the toolkit, then import again.',
        },
      });
    }
  }
  return { keep, dropped };
}

/**
 * Imports every session under `dir`: a new baton session per foreign session (its whole
 * history as events, provenance recorded), or, for one imported before from the same foreign
 * session, the events that bring it forward ({@link reimportEvents}); unchanged sources append
 * nothing. Refuses with `EXISTS`, before writing anything, when a baton session with one of
 * the ids exists and was not imported from that foreign session in this folder (a session of
 * the same name in another folder is another session; `moved` says it is the same one) and
 * does not mirror it here. Never writes inside `dir`. Taking a session's mirror folder in
 * forgets what the mirror wrote, so mirroring resumes (see {@link MirrorFiles}).
 */
export async function importFolder(
  m: SessionManager,
  dir: string,
  format: string,
  o: ImportOptions,
): Promise<ImportResult> {
  const root = await SafeDir.open(dir, o.cwd);
  const p = await pick(root, format, o);
  if (!p.adapter) throw detectionError({ kind: 'none', scores: p.scores, problem: p.problem });
  const now = (o.now ?? (() => new Date()))();
  const report = await readTree(p.adapter, root, now);
  const prefix = o.idPrefix ?? '';
  if (prefix !== '') validateId(`${prefix}x`, 'id prefix');
  const { keep, dropped } = choose(report.sessions);
  const results: ImportedSession[] = dropped.map(({ s, problem }) => skipped(s, problem));

  // Plan first: ids, clashes with sessions that came from elsewhere.
  const planned: Array<{ s: ForeignSession; id: string; existing: SessionState | null }> = [];
  const clashes: string[] = [];
  let otherFolder = false;
  const taken = new Map<string, string>();
  for (const s of keep) {
    // The file may hold progress that the template or an older backup lacks: importing what
    // can be read would record that progress as never made.
    if (s.problems.some((p) => p.code === 'UNREADABLE' && p.severity === 'error' && p.path === s.path)) {
      results.push(
        skipped(s, {
          code: 'IMPORT_FAILED',
          severity: 'error',
          sessionId: s.id,
          path: s.path,
          message: `Session ${s.id} was not imported: ${s.path} cannot be read (permission denied), so baton cannot see its progress.`,
          hint: `Let this user read ${s.path}, then import again.`,
        }),
      );
      continue;
    }
    const id = batonIdFor(s.id, prefix);
    const other = taken.get(id);
    if (other !== undefined) {
      results.push(
        skipped(s, {
          code: 'ID_COLLISION',
          severity: 'warning',
          sessionId: s.id,
          path: s.path,
          message: `Session ${JSON.stringify(s.id)} maps to the baton id ${id}, like ${JSON.stringify(other)}; skipped.`,
          hint: 'Rename one of them in the toolkit, then import again.',
        }),
      );
      continue;
    }
    taken.set(id, s.id);
    let existing: SessionState | null = null;
    if (await m.store.exists(id)) {
      existing = await m.get(id);
      const clash = clashOf(existing, s, root.root, o.moved === true);
      if (clash !== null) {
        clashes.push(clash.text);
        otherFolder ||= clash.otherFolder;
        continue;
      }
    }
    planned.push({ s, id, existing });
  }
  if (clashes.length) {
    throw new BatonError(
      'EXISTS',
      `baton already has session(s) with the same id that were not imported from these ${p.adapter.name} sessions: ${clashes.join(', ')}. Nothing was imported.`,
      {
        hint: hint('import.id-prefix', { moved: Boolean(otherFolder) }),
        details: { clashes },
      },
    );
  }

  const ctx = { importedAt: now.toISOString(), root: root.root };
  const actor: Actor = { agent: o.agent ?? null, ...m.origin };
  let done = 0;
  o.onProgress?.({ done, total: planned.length, item: null });
  for (const { s, id, existing } of planned) {
    if (done > 0) o.onProgress?.({ done, total: planned.length, item: planned[done - 1]!.id });
    done++;
    try {
      results.push(await importOne(m, { s, id, existing }, ctx, actor, o.agent ?? null));
    } catch (e) {
      if (!isBatonError(e)) throw e;
      results.push(
        skipped(s, {
          code: 'IMPORT_FAILED',
          severity: 'error',
          sessionId: s.id,
          path: s.path,
          message: `Session ${s.id} was not imported: ${e.message}`,
          hint: e.hint ?? null,
          ...(e.hintAction ? { hintAction: e.hintAction } : {}),
          details: { code: e.code },
        }),
      );
    }
  }
  if (planned.length) o.onProgress?.({ done, total: planned.length, item: planned[done - 1]!.id });
  const problems = [...report.problems];
  if (report.sessions.length === 0 && problems.length === 0) problems.push(nothingFound(p.adapter.name, root.root));
  return { format: p.adapter.name, root: root.root, sessions: results, problems };
}

/**
 * Moves an imported session that is recorded archived into baton's archive. The toolkit
 * archived it: the import records that as a fact (`session.archived` among its events), not
 * as baton's `archive` verb, so neither the rules of the session being imported (a toolkit's
 * required step, toolkit-guard.ts) nor "only a session that is not running" can refuse it;
 * only the move is left (SessionManager.archive does nothing else for a session recorded
 * archived). An earlier import stopped between the two (a crash) is finished here too.
 */
async function settleArchive(m: SessionManager, id: string, state: SessionState): Promise<SessionState> {
  if (!state.archived || (await m.store.isArchived(id))) return state;
  return m.archive(id);
}

/** A foreign session left out, with the problem that says why. */
function skipped(s: ForeignSession, problem: FormatProblem): ImportedSession {
  return {
    foreignId: s.id,
    id: null,
    action: 'skipped',
    revision: null,
    archived: s.archived,
    problems: [...s.problems, problem],
  };
}

/**
 * Imports one planned session: created with its whole history, or brought forward by the
 * events {@link reimportEvents} decides (nothing when its source is unchanged).
 */
async function importOne(
  m: SessionManager,
  { s, id, existing }: { s: ForeignSession; id: string; existing: SessionState | null },
  ctx: { importedAt: string; root: string },
  actor: Actor,
  agent: string | null,
): Promise<ImportedSession> {
  if (!existing) {
    const plan = importEvents(s, ctx);
    const events = plan.events.map((e) => ({ ...e, actor }) as NewEvent);
    let state = await m.createFrom(id, events);
    await saveImportedCheckpoints(m, id, events);
    state = await settleArchive(m, id, state);
    const problems = [...s.problems, ...plan.problems];
    return { foreignId: s.id, id, action: 'created', revision: state.revision, archived: state.archived, problems };
  }
  const journal = await m.log(id);
  const plan = reimportEvents(existing, journal, s, ctx);
  if (plan.unchanged) {
    await settleArchive(m, id, existing);
    await resumeMirror(m, id, s.format, ctx.root);
    const problems = [...s.problems];
    return {
      foreignId: s.id,
      id,
      action: 'unchanged',
      revision: existing.revision,
      archived: existing.archived,
      problems,
    };
  }
  const r = await m.change(id, () => ({ events: plan.events, result: undefined }), {
    expectedRevision: existing.revision,
    agent,
  });
  if (plan.events.some((e) => e.type === 'checkpoint.created'))
    await saveImportedCheckpoints(m, id, await m.log(id), existing.revision);
  const state = await settleArchive(m, id, r.state);
  await resumeMirror(m, id, s.format, ctx.root);
  const problems = [...s.problems, ...plan.problems];
  return { foreignId: s.id, id, action: 'updated', revision: state.revision, archived: state.archived, problems };
}
