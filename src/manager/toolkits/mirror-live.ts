/**
 * Live sync of a mirror (docs/hooks.md, "Live sync"): a model that still follows a toolkit's
 * prompts rewrites the toolkit's own file with its file tool. The hook that sees the write
 * imports it at once, as `baton import` of the mirror folder would (re-import's diff between
 * what baton holds and the file), and keeps the file true:
 * - a write that only moves forward is taken as written (the model's bytes stay, so its next
 *   edit of the file still applies), and the mirror's other files (registry, manifest,
 *   handoff) are rewritten from baton's state, so none is left stale;
 * - a write that would lose what the session holds (the model wrote from a stale copy, or over
 *   another agent's update) is a conflict: what was new in it is still taken, baton's state
 *   wins, every file of the mirror is rewritten, a `mirror.conflicted` event records it, and
 *   the model is told what it overwrote. Records the write leaves out (a unit's files…) are
 *   such a loss, unless the toolkit closes them so (bmit's findings: mirror-merge.ts);
 * - the toolkit's own fields, which baton does not model, are merged three ways with baton's
 *   (mirror-merge.ts): an older value or a field both changed keeps baton's, a conflict too.
 * Loaded on demand by the hook (agent-hooks.ts), only when a write lands in a mirror folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isBatonError } from '../../domain/errors.js';
import type { SessionState } from '../../domain/state.js';
import { exportInput } from '../../formats/export.js';
import type { ImportEvent } from '../../formats/import.js';
import { PROVENANCE_KEY } from '../../formats/import.js';
import { reimportEvents } from '../../formats/reimport.js';
import { SafeDir } from '../../formats/safe-dir.js';
import type { ForeignSession, FormatName, FormatProblem, WritePlan } from '../../formats/types.js';
import { inspectFolder } from './formats.js';
import { exportInto } from './formats-export.js';
import type { FormatsOptions } from './formats-export.js';
import { saveImportedCheckpoints } from '../checkpoints/import-checkpoints.js';
import { nodeCrypto } from '../lazy.js';
import { mirrorOf, readMirrorRecord, writeMirrorRecord } from './mirror.js';
import type { MirrorSetting } from './mirror.js';
import { closedFindings, mergeWrite } from './mirror-merge.js';
import type { UnitUpdate, WriteMerge } from './mirror-merge.js';
import type { ChangeOptions, ManagerCore as SessionManager, TimedDraft } from '../types.js';

/**
 * Re-import divergences that mean the file lost something baton holds. The others (a new
 * title or unit baton cannot add, a unit's unmapped fields, kept in the provenance's
 * documents) are the model's additions, not a loss.
 */
const LOSES = new Set([
  'status_backwards',
  'unit_removed',
  'tokens_decreased',
  'error_reopened',
  'error_removed',
  'decision_removed',
  'finding_removed',
  'note_removed',
  'milestone_removed',
  'milestone_reopened',
  'artifact_removed',
  'context_removed',
  'unarchived',
  'file_removed',
]);

/** A write of the model's file tool, as the hook saw it. */
export interface MirrorWrite {
  /** Absolute paths the tool wrote. */
  paths: string[];
  agent: string | null;
  /** The conversation's run, or null. */
  runId: string | null;
  /** Options of the change (the conversation's agent and run). */
  change: ChangeOptions;
}

/** One thing a write would have lost, as the `mirror.conflicted` event keeps it. */
export interface MirrorLoss {
  kind: string;
  message: string;
  /** A toolkit field kept over the write (`field_newer`, `field_conflict`): its document and path. */
  field?: string;
}

/** What {@link syncMirrorWrite} did. */
export interface MirrorSync {
  format: FormatName;
  /** The mirror's files the write changed, relative to the mirror folder. */
  paths: string[];
  /** Events the write became (the provenance update included; 0 when it changed no fact). */
  imported: number;
  /** What the write would have lost (empty: it was taken as written). */
  lost: MirrorLoss[];
  /** What the write held that baton cannot take (a new unit, a new title): reported, kept out. */
  notTaken: string[];
  /** Files of the mirror rewritten from baton's state. */
  rewritten: string[];
  /** The rewrite failed (the facts were still taken): why, else null. */
  error: string | null;
  /** What the model is told after its tool call, or null. */
  notice: string | null;
}

const sha256 = (b: Buffer | string): string => nodeCrypto().createHash('sha256').update(b).digest('hex');

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** The paths (absolute) inside the mirror folder, relative to it and '/'-separated. */
export function mirrorPaths(setting: MirrorSetting, paths: readonly string[]): string[] {
  const root = real(setting.out);
  const out: string[] = [];
  for (const p of paths) {
    const rel = path.relative(root, path.join(real(path.dirname(p)), path.basename(p)));
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) out.push(rel.split(path.sep).join('/'));
  }
  return [...new Set(out)];
}

/**
 * Of the paths (absolute) a file tool wrote, those that are files of the session's mirror:
 * inside its folder, and written by baton before (any, before the mirror's first rewrite).
 * The hook records them as the toolkit's state, not as the work's files.
 */
export async function mirrorFilesWritten(
  m: SessionManager,
  state: SessionState,
  paths: readonly string[],
): Promise<string[]> {
  const setting = mirrorOf(state);
  if (!setting) return [];
  const rels = new Set(mirrorPaths(setting, paths));
  if (!rels.size) return [];
  const rec = await readMirrorRecord(m, state.id, state);
  const known = rec && rec.format === setting.format && rec.out === setting.out ? rec.files : null;
  return paths.filter((p) => {
    const r = mirrorPaths(setting, [p])[0];
    return r !== undefined && rels.has(r) && (!known || r in known);
  });
}

/**
 * Takes a model's write of session `id`'s mirror into the session (see the file comment).
 * Null when the write touched no file of the mirror, or only put back bytes baton wrote.
 */
export async function syncMirrorWrite(
  m: SessionManager,
  id: string,
  w: MirrorWrite,
  o: FormatsOptions,
): Promise<MirrorSync | null> {
  const state = await m.get(id);
  const setting = mirrorOf(state);
  if (!setting) return null;
  const rels = mirrorPaths(setting, w.paths);
  if (!rels.length) return null;
  const rec = await readMirrorRecord(m, id, state);
  const known = rec && rec.format === setting.format && rec.out === setting.out ? rec.files : null;
  const dir = await SafeDir.open(setting.out, o.cwd);
  // The mirror's own files (before its first rewrite: any) whose bytes are no longer baton's.
  const mine: string[] = [];
  for (const r of rels) {
    if (known && !(r in known)) continue;
    const got = await dir.read(r);
    if (got.kind === 'ok' && known && sha256(got.bytes) === known[r]) continue;
    mine.push(r);
  }
  if (!mine.length) return null;

  const now = (o.now ?? (() => new Date()))();
  const report = await inspectFolder(setting.out, setting.format, o);
  const foreignId = exportInput(state, setting.format, now).foreignId;
  const s =
    report.sessions.find((x) => x.id === foreignId && !x.archived) ??
    report.sessions.find((x) => x.id === foreignId) ??
    null;
  const journal = await m.log(id);
  const { events, lost, notTaken, archive } = s
    ? diff(state, journal, s, mine, [...report.problems, ...s.problems], now, dir.root)
    : unreadable(foreignId, mine, report.problems);
  // What the layout cannot hold at all (baton's notes in a layout that keeps none) is no loss of this write.
  if (s && lost.length) {
    const inherent = await layoutLosses(m, id, setting, journal, foreignId, now, o);
    const left = lost.filter((l) => !inherent.has(`${l.kind}\0${l.message}`));
    lost.splice(0, lost.length, ...left);
  }
  // The toolkit's own fields, merged three ways: the write must not overwrite newer ones (mirror-merge.ts).
  const merge = s ? await mergeWrite(state, journal, s, now, o) : null;
  if (merge) lost.push(...merge.lost);
  // A toolkit that closes a finding by removing it from its file (bmit): one the writer saw is closed.
  const closed = s && merge ? closedFindings(lost, state, journal, s, merge.copy) : [];
  // An unreadable write (torn, not the layout) would stop the writer, which refuses to replace
  // a session file it cannot read: the model's bytes are set aside, for a person to look at.
  if (!s) for (const p of mine) fs.renameSync(path.join(dir.root, p), path.join(dir.root, `${p}.torn`));
  const conflict = lost.length > 0;
  const drafts = draftsOf(events, conflict ? merge : null, merge?.units ?? [], closed, m.time());
  if (conflict)
    for (const p of mine)
      drafts.push({
        type: 'mirror.conflicted',
        data: { format: setting.format, path: p, agent: w.agent, runId: w.runId, lost },
        time: m.time(),
      } as TimedDraft);
  if (drafts.length) {
    await m.change(id, () => ({ events: drafts, result: undefined }), {
      ...w.change,
      expectedRevision: state.revision,
    });
    if (events.some((e) => e.type === 'checkpoint.created'))
      await saveImportedCheckpoints(m, id, await m.log(id), state.revision);
    // The toolkit's own file says the session is archived: the toolkit did it, so baton follows
    // instead of refusing as it refuses its own archive verb (toolkit-guard.ts); a required step
    // skipped this way is recorded in the rules' notes as waived.
    if (archive) await m.archive(id, { ...w.change, force: true });
  }
  let rewritten: string[] = [];
  let error: string | null = null;
  try {
    // A conflict: baton's state wins, every file is rewritten. Otherwise the model's bytes stay.
    // A layout's writer takes the file it replaces as its base (Maestro's frontmatter): with
    // toolkit fields of the write kept out, it builds from the merged documents instead.
    rewritten = await withFilesAside(dir.root, merge?.docsLost ? mine : [], () =>
      rewriteKeeping(m, id, setting, conflict ? [] : mine, o),
    );
  } catch (e) {
    if (!isBatonError(e)) throw e;
    error = e.message;
  }
  const r: MirrorSync = {
    format: setting.format,
    paths: mine,
    imported: events.length + (merge?.units.length ?? 0) + closed.length,
    lost,
    notTaken,
    rewritten,
    error,
    notice: null,
  };
  r.notice = noticeOf(r, setting);
  return r;
}

/** What re-import makes of the write: the events that move forward, what it would lose, what baton cannot take. */
function diff(
  state: SessionState,
  journal: ReadonlyArray<{ type: string; data: unknown }>,
  s: ForeignSession,
  written: string[],
  problems: FormatProblem[],
  now: Date,
  root: string,
): { events: ImportEvent[]; lost: MirrorLoss[]; notTaken: string[]; archive: boolean } {
  const plan = reimportEvents(state, journal, s, { importedAt: now.toISOString(), root });
  const lost: MirrorLoss[] = [];
  const notTaken: string[] = [];
  for (const p of plan.problems) {
    if (p.code !== 'REIMPORT_DIVERGED') continue;
    const kind = String(p.details?.['kind'] ?? '');
    if (LOSES.has(kind)) lost.push({ kind, message: lossText(kind, p) });
    else if (kind === 'unit_added' || kind === 'title') notTaken.push(p.message);
  }
  // A written file the reader sets aside as older than the files saved after it (Go Team: a
  // state.json saved before a manifest or registry that names another step): its position is
  // not read, so re-import sees nothing go backwards, yet the file now says less than the
  // session. The hook saw the write land after baton's own files, so it is a stale copy.
  for (const p of problems) {
    if (p.code !== 'STALE_STATE' || p.path === null || !written.includes(p.path)) continue;
    if (p.sessionId !== null && p.sessionId !== s.id) continue;
    lost.push({ kind: 'stale_save', message: staleText(p) });
  }
  // A registry or companion written alone, disagreeing with the session file: the toolkit
  // reads the session file (it wins), so what the companion says instead is stale.
  if (!written.includes(s.path)) {
    const seen = new Set<string>();
    for (const p of problems) {
      if (p.code !== 'REGISTRY_MISMATCH' || (p.sessionId !== null && p.sessionId !== s.id)) continue;
      if (seen.has(p.message)) continue;
      seen.add(p.message);
      lost.push({ kind: 'registry', message: p.message });
    }
  }
  return { events: plan.unchanged ? [] : plan.events, lost, notTaken, archive: plan.archive };
}

/**
 * The losses baton's own export already has (`kind\0message`): the session written into an
 * empty folder in the layout and compared with baton's state as a write of the model would be.
 */
async function layoutLosses(
  m: SessionManager,
  id: string,
  setting: MirrorSetting,
  journal: ReadonlyArray<{ type: string; data: unknown }>,
  foreignId: string,
  now: Date,
  o: FormatsOptions,
): Promise<Set<string>> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-mirror-'));
  try {
    await exportInto(m, id, setting.format, tmp, o);
    const report = await inspectFolder(tmp, setting.format, o);
    const s = report.sessions.find((x) => x.id === foreignId);
    if (!s) return new Set();
    const state = await m.get(id);
    const r = diff(state, journal, s, [s.path], [], now, tmp);
    return new Set(r.lost.map((l) => `${l.kind}\0${l.message}`));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The session is no longer in the folder after the write (damaged, or written without it): all of it would be lost. */
function unreadable(
  foreignId: string,
  written: string[],
  problems: FormatProblem[],
): { events: ImportEvent[]; lost: MirrorLoss[]; notTaken: string[]; archive: boolean } {
  const why = problems.find((p) => p.severity === 'error');
  return {
    events: [],
    lost: [
      {
        kind: 'unreadable',
        message: `${written.join(', ')} no longer hold${written.length === 1 ? 's' : ''} session ${foreignId}${why ? ` (${why.message})` : ''}; your write is kept as ${written.map((w) => `${w}.torn`).join(', ')}`,
      },
    ],
    notTaken: [],
    archive: false,
  };
}

/** A write the reader set aside as older than the files saved after it, in words for the model. */
function staleText(p: FormatProblem): string {
  const why = p.message
    .replace(/^Session [^:]+: /, '')
    .replace(/: the steps the rollback undid are not completed\.$/, '');
  return `${p.path} is older than the files saved after it (${why}): what your write says of the position is not read`;
}

/** A loss in words for the model: what baton holds, what the write said. */
function lossText(kind: string, p: FormatProblem): string {
  const d = (p.details ?? {}) as Record<string, unknown>;
  if (kind === 'status_backwards' && typeof d['unitId'] === 'string' && d['foreign'] !== undefined)
    return `unit ${d['unitId']} is ${String(d['baton'])}${d['batonRetries'] ? ` (retries ${String(d['batonRetries'])})` : ''}; your write said ${String(d['foreign'])}`;
  if (kind === 'tokens_decreased') {
    const f = d['foreign'] as { input?: number; output?: number } | undefined;
    const b = d['baton'] as { input?: number; output?: number } | undefined;
    const who =
      typeof d['agent'] === 'string' ? `agent ${d['agent']}` : `unit ${String(d['phaseId'] ?? 'of the session')}`;
    return `tokens of ${who} are ${b?.input ?? '?'} in / ${b?.output ?? '?'} out; your write said ${f?.input ?? '?'} / ${f?.output ?? '?'}`;
  }
  if (kind === 'file_removed')
    return `unit ${String(d['unitId'])} holds file ${String(d['path'])} (${String(d['action'])}); your write left it out`;
  return p.message;
}

/*
 * The provenance of a live write must not say "nothing changed since the import": the export
 * would then keep the position fields as the documents have them, and those are the stale
 * copy's (a conflict) or the companions' that the write left behind (a registry, a manifest).
 */
function withoutWorkHash(e: ImportEvent): ImportEvent {
  if (e.type !== 'metadata.set' || e.data.key !== PROVENANCE_KEY) return e;
  const { workHash: _drop, ...value } = e.data.value as Record<string, unknown>;
  return { ...e, data: { ...e.data, value } };
}

/**
 * The events of a write: the re-import's (with the merged documents when `conflicted` is the
 * merge of a conflict), then the findings closed and the units' fields, before the provenance
 * update (last).
 */
function draftsOf(
  events: ImportEvent[],
  conflicted: WriteMerge | null,
  units: UnitUpdate[],
  closed: string[],
  time: string,
): TimedDraft[] {
  const drafts = events.map((e) => withoutWorkHash(conflicted ? withDocuments(e, conflicted.merged) : e) as TimedDraft);
  const at = drafts.findIndex((e) => e.type === 'metadata.set' && (e.data as { key?: string }).key === PROVENANCE_KEY);
  drafts.splice(
    at < 0 ? drafts.length : at,
    0,
    ...closed.map((findingId) => ({ type: 'finding.removed', data: { findingId }, time }) as TimedDraft),
    ...units.map(
      (u) =>
        ({
          type: 'phase.updated',
          data: { phaseId: u.phaseId, metadata: u.metadata, reason: 'the toolkit fields of a live write' },
          time,
        }) as TimedDraft,
    ),
  );
  return drafts;
}

/** The provenance update `e` with the documents `docs` (the merged ones of a conflict). */
function withDocuments(e: ImportEvent, docs: Record<string, unknown>): ImportEvent {
  if (e.type !== 'metadata.set' || e.data.key !== PROVENANCE_KEY) return e;
  return { ...e, data: { ...e.data, value: { ...(e.data.value as Record<string, unknown>), documents: docs } } };
}

/**
 * Runs `f` with the files `rels` (relative to `root`) moved aside, then drops them (the
 * rewrite replaced them) or, when `f` fails without writing them, puts them back.
 */
async function withFilesAside<T>(root: string, rels: string[], f: () => Promise<T>): Promise<T> {
  const aside = rels.map((r) => [path.join(root, r), path.join(root, `${r}.baton-merge-${process.pid}`)] as const);
  for (const [from, to] of aside) fs.renameSync(from, to);
  let ok = false;
  try {
    const r = await f();
    ok = true;
    return r;
  } finally {
    for (const [from, to] of aside)
      if (ok || fs.existsSync(from)) fs.rmSync(to, { force: true });
      else fs.renameSync(to, from);
  }
}

/**
 * Rewrites the mirror from the session's state, except the files in `keep` (the model's
 * write taken as it is), and remembers the hash of every file as baton's (MirrorRecord).
 */
async function rewriteKeeping(
  m: SessionManager,
  id: string,
  setting: MirrorSetting,
  keep: string[],
  o: FormatsOptions,
): Promise<string[]> {
  const kept = new Set(keep);
  let plan: WritePlan | null = null;
  const r = await exportInto(m, id, setting.format, setting.out, {
    ...o,
    guard: async (p) => {
      const writes = p.writes.filter((x) => !kept.has(x.path));
      p.writes.splice(0, p.writes.length, ...writes);
      plan = p;
    },
  });
  const state = await m.get(id);
  const rec = await readMirrorRecord(m, id, state);
  const files: Record<string, string> =
    rec && rec.format === setting.format && rec.out === setting.out ? { ...rec.files } : {};
  const done = plan as WritePlan | null;
  for (const x of done?.writes ?? []) files[x.path] = sha256(Buffer.from(x.content, 'utf8'));
  for (const x of done?.removes ?? []) delete files[x];
  const dir = await SafeDir.open(setting.out, o.cwd);
  for (const k of kept) {
    const got = await dir.read(k);
    if (got.kind === 'ok') files[k] = sha256(got.bytes);
  }
  await writeMirrorRecord(m, id, state, { format: setting.format, out: setting.out, files });
  return r.written;
}

/** What the model is told after its write, or null when the write was taken as it is. */
function noticeOf(r: MirrorSync, setting: MirrorSetting): string | null {
  const files = r.paths.join(', ');
  const parts: string[] = [];
  if (r.lost.length) {
    parts.push(
      `[baton] Your write of ${files} (the ${setting.format} session, mirrored by baton in ${setting.out}) was made from a stale copy and would have lost what the session holds: ${r.lost.map((l) => l.message).join('; ')}.`,
    );
    parts.push(
      r.error
        ? `baton kept its state${r.imported > 1 ? ' and took what was new in your write' : ''}, but could not rewrite the file (${r.error}).`
        : `baton kept its state${r.imported > 1 ? ' and took what was new in your write' : ''}, and rewrote ${files} from it: read the file again before you change it.`,
    );
  }
  if (r.notTaken.length)
    parts.push(
      `${parts.length ? '' : `[baton] ${files}: `}baton cannot take: ${r.notTaken.join('; ')} (see \`baton status\`).`,
    );
  return parts.length ? parts.join(' ') : null;
}
