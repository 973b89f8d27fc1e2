/**
 * The files part of the resume plan: every file the session recorded (its latest record
 * wins) compared with the workspace as the caller measured it. Pure.
 */
import type { FileRecord, Phase, SessionState } from '../state.js';
import type {
  FileCheck,
  FileCheckKind,
  FilesReport,
  PhaseFiles,
  ResumeInput,
  WorkspaceFile,
} from './resume-plan-types.js';

function timeKey(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? -Infinity : t;
}

/** Recorded files compared with the workspace, grouped by the phase that last recorded them (plan order, then files without a phase). */
export function checkFiles(s: SessionState, input: ResumeInput): FilesReport {
  // The latest record of each path wins; it names the phase the path is listed under.
  interface Owner {
    phase: Phase | null;
    rec: FileRecord;
  }
  const latest = new Map<string, Owner>();
  const consider = (phase: Phase | null, rec: FileRecord): void => {
    const prev = latest.get(rec.path);
    if (!prev || timeKey(rec.recordedAt) >= timeKey(prev.rec.recordedAt)) latest.set(rec.path, { phase, rec });
  };
  for (const p of s.phases) for (const f of p.files) consider(p, f);
  for (const f of s.looseFiles ?? []) consider(null, f);

  const now = new Map<string, WorkspaceFile>();
  for (const w of input.workspace) now.set(w.path, w);

  const groups = new Map<Phase | null, FileCheck[]>();
  const unmeasured: string[] = [];
  const counts = { changed: 0, vanished: 0, reappeared: 0, unverified: 0 };
  for (const [path, { phase, rec }] of latest) {
    const cur = now.get(path);
    if (!cur) {
      unmeasured.push(path);
      continue;
    }
    let kind: FileCheckKind;
    if (rec.action === 'deleted') kind = cur.sha256 === null ? 'unchanged' : 'reappeared';
    else if (cur.sha256 === null) kind = 'vanished';
    else if (rec.sha256 === null) kind = 'unverified';
    else kind = rec.sha256 === cur.sha256 ? 'unchanged' : 'changed';
    const inFlight = phase?.status === 'in_progress';
    if (kind === 'unchanged' && !inFlight) continue;
    if (kind !== 'unchanged') counts[kind] += 1;
    const check: FileCheck = {
      path,
      kind,
      recordedAction: rec.action,
      recordedSha256: rec.sha256,
      recordedSize: rec.size,
      recordedAt: rec.recordedAt,
      currentSha256: cur.sha256,
      currentSize: cur.size,
      possiblyHalfWritten: inFlight,
    };
    const g = groups.get(phase) ?? [];
    g.push(check);
    groups.set(phase, g);
  }

  const byPhase: PhaseFiles[] = [];
  const order: Array<Phase | null> = [...s.phases, null];
  for (const p of order) {
    const g = groups.get(p);
    if (!g?.length) continue;
    g.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    byPhase.push({
      phaseId: p?.id ?? null,
      phaseName: p?.name ?? null,
      phaseStatus: p?.status ?? null,
      possiblyHalfWritten: p?.status === 'in_progress',
      files: g,
    });
  }
  const newFiles = [...new Set(input.newFiles ?? [])].filter((f) => !latest.has(f)).sort();
  unmeasured.sort();
  const outsideChanges =
    counts.changed + counts.vanished + counts.reappeared + counts.unverified > 0 || newFiles.length > 0;
  return { byPhase, ...counts, newFiles, unmeasured, outsideChanges };
}

/**
 * Metadata key of the paths that were not in git's HEAD (untracked, or added only) when the
 * session started: they are the user's, not news, and never listed as new files.
 */
export const NEW_AT_START_KEY = 'notInHeadAtStart';

/** The agent CLI configs `baton hooks install` writes in a project (relative to its root). */
export const HOOK_CONFIG_PATHS: readonly string[] = [
  '.claude/settings.json',
  '.codex/hooks.json',
  '.gemini/settings.json',
];

/**
 * True when `path` is an agent CLI's hook config holding baton's hook entries (a command
 * running `hook claude|codex|gemini`): `baton hooks install` wrote it, so it is never news.
 * `read` gives the file's text (null when unreadable) and is called only for those paths.
 */
export function isBatonHookConfig(path: string, read: () => string | null): boolean {
  if (!HOOK_CONFIG_PATHS.includes(path)) return false;
  const text = read();
  return text !== null && /["'\s]hook (?:claude|codex|gemini)\b/.test(text);
}
