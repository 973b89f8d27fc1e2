/**
 * Live sync's merge of the toolkit's own fields (docs/hooks.md, "Live sync"): what baton does
 * not model (Maestro's `downstream_context`, CCW's `quality_checks`, any field a toolkit adds)
 * is kept only in the provenance's documents, and the mirror's files are written from them. A
 * model's write of the file is merged three ways with them (formats/merge-documents.ts):
 * base = the version of the documents the writer most likely copied (the closest of those the
 * session held), ours = the documents baton holds, theirs = the write. A field baton changed
 * since the writer's copy is not overwritten by the copy's older value, and a field both
 * changed keeps baton's: either makes the write a conflict, named field by field.
 * Fields baton models are not counted here: the export writes them from baton's state (the
 * re-import's diff judges them), so a field only counts when the exported files depend on it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fold } from '../../domain/apply.js';
import type { PhaseSpec, StoredEvent } from '../../domain/events.js';
import type { SessionState } from '../../domain/state.js';
import { exportInput } from '../../formats/export.js';
import { importEvents, PROVENANCE_KEY, provenanceOf } from '../../formats/import.js';
import type { Provenance } from '../../formats/import.js';
import { closestBase, mergeDocuments, withField } from '../../formats/merge-documents.js';
import type { FieldKept } from '../../formats/merge-documents.js';
import { SafeDir } from '../../formats/safe-dir.js';
import type { ForeignSession, FormatName } from '../../formats/types.js';
import { adaptersOf } from './formats-export.js';
import type { FormatsOptions } from './formats-export.js';

type Docs = Record<string, unknown>;

/** A field the write would have overwritten, as `mirror.conflicted` keeps it among what was lost. */
export interface FieldLoss {
  kind: 'field_newer' | 'field_conflict';
  message: string;
  /** The document (relative to the mirror folder) and the field in it. */
  field: string;
}

/** A unit's own fields as merged: the phase's whole metadata (a `phase.updated` of live sync). */
export interface UnitUpdate {
  phaseId: string;
  metadata: Record<string, unknown>;
}

/** Result of {@link mergeWrite}. */
export interface WriteMerge {
  /** The phases whose toolkit fields (unit metadata) the merge changes. */
  units: UnitUpdate[];
  /** The documents the session keeps if the write is a conflict: the write's, with baton's newer fields. */
  merged: Docs;
  /** The toolkit's own fields the write would have lost (empty: it loses none). */
  lost: FieldLoss[];
  /** Some are fields of the documents (not of a unit): the mirror must be written from the merged documents. */
  docsLost: boolean;
  /** The write was made from the newest documents baton held (not from an older copy). */
  fromLatest: boolean;
  /** The writer's copy (the base of the merge) and where the journal recorded it. */
  copy: DocumentsVersion;
}

/** A value no toolkit file holds: a field the export writes from the documents shows it. */
const PROBE = 'baton-probe-6f1d0c2e';

/** At most this many versions of the documents are compared with a write (the newest). */
const MAX_VERSIONS = 50;

/** One version of the documents the session held, and where in the journal it was recorded. */
export interface DocumentsVersion {
  docs: Docs;
  /** Index of its event in the journal. */
  at: number;
}

/** The versions of the documents of foreign session `foreignId` the journal holds (oldest first), each as provenance recorded it. */
export function documentVersions(
  journal: ReadonlyArray<{ type: string; data: unknown }>,
  format: FormatName,
  foreignId: string,
): DocumentsVersion[] {
  const out: DocumentsVersion[] = [];
  journal.forEach((e, at) => {
    if (e.type !== 'metadata.set') return;
    const d = e.data as { key?: string; value?: Partial<Provenance> };
    const v = d.value;
    if (d.key !== PROVENANCE_KEY || !v || v.format !== format || v.foreignId !== foreignId) return;
    if (v.documents && typeof v.documents === 'object') out.push({ docs: v.documents, at });
  });
  return out.slice(-MAX_VERSIONS);
}

/**
 * Merges the write `s` with the documents session `state` holds (see the file comment); null
 * when the session holds none for it (not imported from this toolkit session).
 */
export async function mergeWrite(
  state: SessionState,
  journal: ReadonlyArray<{ type: string; data: unknown }>,
  s: ForeignSession,
  now: Date,
  o: FormatsOptions,
): Promise<WriteMerge | null> {
  const prov = provenanceOf(state);
  if (!prov || prov.format !== s.format || prov.foreignId !== s.id || !prov.documents) return null;
  const ours = prov.documents;
  const versions = documentVersions(journal, s.format, s.id);
  if (!versions.length || JSON.stringify(versions.at(-1)!.docs) !== JSON.stringify(ours))
    versions.push({ docs: ours, at: journal.length });
  // The writer's copy: one version of the whole file, so its units' fields are those of the same moment.
  const at = closestBase(
    versions.map((v) => v.docs),
    s.documents,
  );
  const copy = versions[at] ?? versions.at(-1)!;
  const { merged, kept } = mergeDocuments(copy.docs, ours, s.documents);
  const units = mergeUnits(state, journal, s, now, copy.at);
  // The state the mirror is written from after the write: the units' fields merged.
  const after = withUnits(state, units.updates);
  // Each kept field as the export would see another value of it (the write's, a probe): the unit's, or the documents'.
  const candidates: Candidate[] = [
    ...units.kept.map(({ phaseId, merged: meta, k }) => ({
      loss: lossOf({ ...k, doc: `unit ${phaseId}`, field: k.field }),
      theirs: k.theirs,
      with: (v: unknown) => ({
        state: withUnits(after, [{ phaseId, metadata: (withField({ m: meta }, k, v)['m'] ?? {}) as Docs }]),
        docs: merged,
      }),
    })),
    ...kept.map((k) => ({
      loss: lossOf(k),
      with: (v: unknown) => ({ state: after, docs: withField(merged, k, v) }),
      inDocs: true,
      theirs: k.theirs,
    })),
  ];
  const lost = candidates.length ? await exported(after, s.format, merged, candidates, now, o) : [];
  return {
    units: units.updates,
    merged,
    lost: lost.map((c) => c.loss),
    docsLost: lost.some((c) => c.inDocs === true),
    fromLatest: copy === versions.at(-1),
    copy,
  };
}

/** A kept field, and the session and documents the export would have with another value of it. */
interface Candidate {
  loss: FieldLoss;
  /** The write's value of the field. */
  theirs: unknown;
  with: (value: unknown) => { state: SessionState; docs: Docs };
  /** A field of the documents (else of a unit's metadata). */
  inDocs?: boolean;
}

/** `state` with the phases' metadata of `updates`. */
function withUnits(state: SessionState, updates: UnitUpdate[]): SessionState {
  if (!updates.length) return state;
  const out = structuredClone(state);
  for (const u of updates) {
    const p = out.phases.find((x) => x.id === u.phaseId);
    if (p) p.metadata = structuredClone(u.metadata);
  }
  return out;
}

/** Phase `id`'s metadata as the journal had it at index `upTo` (included): as created, then as updated; null before the phase existed. */
function unitAt(journal: ReadonlyArray<{ type: string; data: unknown }>, id: string, upTo: number): Docs | null {
  let out: Docs | null = null;
  journal.forEach((e, i) => {
    if (i > upTo) return;
    const d = e.data as { phases?: PhaseSpec[]; phase?: PhaseSpec; phaseId?: string; metadata?: Docs };
    if (e.type === 'session.created') {
      const p = d.phases?.find((x) => x.id === id);
      if (p) out = { ...(p.metadata ?? {}) };
    } else if (e.type === 'phase.added' && d.phaseId === id) out = { ...(d.phase?.metadata ?? {}) };
    else if (e.type === 'phase.updated' && d.phaseId === id && d.metadata) out = d.metadata;
  });
  return out;
}

/**
 * The units' own fields (what the layout's reader keeps in a unit's metadata: Maestro's
 * `downstream_context`, CCW's `quality_checks`…) merged three ways per phase: the export
 * writes a unit from the phase's metadata, so these follow the write here, not only in the
 * documents. Base: the phase's metadata at the writer's copy (journal index `copyAt`).
 */
function mergeUnits(
  state: SessionState,
  journal: ReadonlyArray<{ type: string; data: unknown }>,
  s: ForeignSession,
  now: Date,
  copyAt: number,
): { updates: UnitUpdate[]; kept: Array<{ phaseId: string; merged: Docs; k: FieldKept }> } {
  const fresh = importEvents(s, { importedAt: now.toISOString(), root: '' }).events;
  const target = fold(
    null,
    fresh.map((e, i) => ({ ...e, actor: { agent: null, pid: 0, host: '' }, seq: i + 1 }) as StoredEvent),
    state.id,
  );
  const updates: UnitUpdate[] = [];
  const kept: Array<{ phaseId: string; merged: Docs; k: FieldKept }> = [];
  for (const t of target?.phases ?? []) {
    const p = state.phases.find((x) => x.id === t.id);
    if (!p) continue;
    const base = unitAt(journal, p.id, copyAt) ?? p.metadata;
    const r = mergeDocuments({ m: base }, { m: p.metadata }, { m: t.metadata });
    const merged = (r.merged['m'] ?? {}) as Docs;
    if (JSON.stringify(merged) !== JSON.stringify(p.metadata)) updates.push({ phaseId: p.id, metadata: merged });
    for (const k of r.kept) kept.push({ phaseId: p.id, merged, k });
  }
  return { updates, kept };
}

/** Of the kept fields, those the exported files depend on (the others baton writes from its state). */
async function exported(
  after: SessionState,
  format: FormatName,
  merged: Docs,
  candidates: Candidate[],
  now: Date,
  o: FormatsOptions,
): Promise<Candidate[]> {
  const adapter = adaptersOf(o).find((a) => a.name === format);
  if (!adapter) return [];
  // An empty folder: the export builds from the documents alone (a file in the mirror would be its base).
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-merge-'));
  try {
    const dir = await SafeDir.open(tmp, o.cwd);
    const render = async (state: SessionState, docs: Docs): Promise<string | null> => {
      try {
        const input = { ...exportInput(state, format, now), original: structuredClone(docs) };
        const plan = await adapter.exportPlan(input, dir);
        return JSON.stringify(plan.writes.map((w) => [w.path, w.content]));
      } catch {
        return null;
      }
    };
    const mine = await render(after, merged);
    // The export refuses the session as it is: nothing to compare (the rewrite reports why).
    if (mine === null) return [];
    const out: Candidate[] = [];
    for (const c of candidates) {
      // The export must write the field as the documents hold it: with the write's value the
      // files differ, and a probe value is written as it is (a field baton models is written
      // from its state, whatever the documents say; its old value may still tune the output).
      const t = c.with(c.theirs);
      if ((await render(t.state, t.docs)) === mine) continue;
      const p = c.with(PROBE);
      if ((await render(p.state, p.docs))?.includes(PROBE)) out.push(c);
    }
    return out;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** A value in a few words for the model: JSON, clipped. */
function shown(v: unknown): string {
  if (v === undefined) return '(none)';
  const t = JSON.stringify(v);
  return t.length > 80 ? `${t.slice(0, 77)}...` : t;
}

/** A kept field in words for the model: what baton kept, what the write said. */
function lossOf(k: FieldKept): FieldLoss {
  const field = `${k.doc}: ${k.field || '(all its fields)'}`;
  if (k.why === 'newer')
    return {
      kind: 'field_newer',
      field,
      message: `${field} is ${shown(k.ours)} in the session, newer than your copy's ${shown(k.theirs)} (kept)`,
    };
  return {
    kind: 'field_conflict',
    field,
    message: `${field} was changed both in the session (${shown(k.ours)}, kept) and by your write (${shown(k.theirs)})`,
  };
}

/** Toolkits whose file closes an open finding by removing it (bmit's seed: "challenger finding added/removed"). */
const CLOSES_FINDINGS: ReadonlySet<FormatName> = new Set(['bmit']);

/** Every string in a JSON value. */
function strings(v: unknown, out: Set<string>): Set<string> {
  if (typeof v === 'string') out.add(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
}

/**
 * The open findings of the session the write leaves out: `closed`, the ids of those the
 * toolkit's file closes by removal and the writer's copy held (in its documents, or recorded
 * before it: the file baton wrote listed them), so it saw them and removed them; `unseen`, how
 * many others (added since its copy: a loss).
 */
export function findingsLeftOut(
  state: SessionState,
  journal: ReadonlyArray<{ type: string; data: unknown }>,
  s: ForeignSession,
  copy: DocumentsVersion,
): { closed: string[]; unseen: number } {
  const written = new Map<string, number>();
  for (const f of s.findings) written.set(f.text, (written.get(f.text) ?? 0) + 1);
  const closes = CLOSES_FINDINGS.has(s.format);
  const texts = closes ? strings(copy.docs, new Set()) : new Set<string>();
  const before = new Set<string>();
  if (closes)
    journal.forEach((e, i) => {
      if (i <= copy.at && e.type === 'finding.added') before.add((e.data as { findingId: string }).findingId);
    });
  const closed: string[] = [];
  let unseen = 0;
  for (const f of state.findings) {
    if (f.removed) continue;
    const n = written.get(f.text) ?? 0;
    if (n > 0) written.set(f.text, n - 1);
    else if (texts.has(f.text) || before.has(f.id)) closed.push(f.id);
    else unseen++;
  }
  return { closed, unseen };
}

/**
 * The findings the write closed (ids; see findingsLeftOut): no longer counted among its losses,
 * whose `finding_removed` is reworded to the ones it did not see, or dropped.
 */
export function closedFindings(
  lost: Array<{ kind: string; message: string }>,
  state: SessionState,
  journal: ReadonlyArray<{ type: string; data: unknown }>,
  s: ForeignSession,
  copy: DocumentsVersion,
): string[] {
  const left = findingsLeftOut(state, journal, s, copy);
  const at = lost.findIndex((l) => l.kind === 'finding_removed');
  if (!left.closed.length || at < 0) return left.closed;
  if (left.unseen === 0) lost.splice(at, 1);
  else
    lost[at] = {
      kind: 'finding_removed',
      message: `${left.unseen} open finding(s) added since your copy are not in your write; kept open`,
    };
  return left.closed;
}
