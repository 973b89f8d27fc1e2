/**
 * Three-way merge of a toolkit's documents (ForeignSession.documents, kept in the provenance),
 * for live sync (docs/hooks.md, "Live sync"): `base` is the copy the writer worked from (see
 * {@link closestBase}), `ours` what baton holds now, `theirs` what the model wrote. Pure: no
 * I/O, no clock.
 *
 * Per field, deep through mappings (and through lists whose every item is a mapping with its
 * own `id`, matched by that id): a field only one side changed takes that side's value; a field
 * both changed differently is a conflict and keeps ours. Anything else (a list without ids, a
 * string, a number) is one field. The caller decides which differences matter (the fields
 * baton models are written from its state anyway).
 */

/** One field where the merge did not take the model's value, by the path of the field. */
export interface FieldKept {
  /** Document key (a path relative to the toolkit's folder), then the field: `phases[id=2].downstream_context`. */
  doc: string;
  field: string;
  /** The field's steps from the document: a mapping key, or the id key of a list item. */
  steps: PathStep[];
  /** `conflict`: both sides changed it; `newer`: only baton changed it, the write had the older value. */
  why: 'conflict' | 'newer';
  base: unknown;
  ours: unknown;
  theirs: unknown;
}

/** Result of {@link mergeDocuments}. */
export interface DocumentsMerge {
  /** The documents merged (equal to `theirs` when {@link kept} is empty). */
  merged: Record<string, unknown>;
  /** The fields where ours was kept over theirs, in document order. */
  kept: FieldKept[];
}

/** One step of a field's path: a mapping's key, or (`id`, JSON of it) the list item with that id. */
export type PathStep = { key: string } | { id: string };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Deep equality of JSON values (mapping key order ignored; `undefined` is an absent field). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameValue(a[k], b[k]));
  }
  return false;
}

/** The `id` of a list item, as a key, or null when the item has none usable. */
function idOf(v: unknown): string | null {
  if (!isObj(v)) return null;
  const id = v['id'];
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : null;
}

/** The list's items by id, or null when one lacks an id or two share one (then the list is one field). */
function byId(v: unknown): Map<string, unknown> | null {
  if (!Array.isArray(v)) return v === undefined ? new Map() : null;
  const m = new Map<string, unknown>();
  for (const x of v) {
    const id = idOf(x);
    if (id === null || m.has(id)) return null;
    m.set(id, x);
  }
  return m;
}

/** The three lists by item id, when both sides are lists of items with ids (the base: also absent); else null. */
function idLists(
  b: unknown,
  o: unknown,
  t: unknown,
): [Map<string, unknown>, Map<string, unknown>, Map<string, unknown>] | null {
  if (!Array.isArray(o) || !Array.isArray(t)) return null;
  const bm = byId(b);
  const om = byId(o);
  const tm = byId(t);
  return bm && om && tm ? [bm, om, tm] : null;
}

/** Field path segment of an id-matched list item. */
const idSeg = (key: string): string => `[id=${String(JSON.parse(key))}]`;
const join = (path: string, key: string): string =>
  path === '' ? key : key.startsWith('[') ? `${path}${key}` : `${path}.${key}`;

interface Sink {
  doc: string;
  kept: FieldKept[];
}

/** Where a walk is: the field's path as text and as steps. */
interface At {
  path: string;
  steps: PathStep[];
}
const ROOT: At = { path: '', steps: [] };
const keyAt = (at: At, k: string): At => ({ path: join(at.path, k), steps: [...at.steps, { key: k }] });
const idAt = (at: At, k: string): At => ({ path: join(at.path, idSeg(k)), steps: [...at.steps, { id: k }] });

/** Merges one value; `undefined` is an absent field (removing a field is a change like any other). */
function merge3(b: unknown, o: unknown, t: unknown, at: At, sink: Sink): unknown {
  if (sameValue(o, t) || sameValue(b, t)) return o;
  if (sameValue(b, o)) return t;
  if (isObj(o) && isObj(t) && (b === undefined || isObj(b))) {
    const base: Obj = isObj(b) ? b : {};
    const out: Obj = {};
    for (const k of new Set([...Object.keys(o), ...Object.keys(t)])) {
      const v = merge3(base[k], o[k], t[k], keyAt(at, k), sink);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  const lists = idLists(b, o, t);
  if (lists) {
    const [bm, om, tm] = lists;
    const out: unknown[] = [];
    // Ours' order, then the items only the write added, in its order.
    for (const k of [...om.keys(), ...[...tm.keys()].filter((k) => !om.has(k))]) {
      const v = merge3(bm.get(k), om.get(k), tm.get(k), idAt(at, k), sink);
      if (v !== undefined) out.push(v);
    }
    return out;
  }
  sink.kept.push({ doc: sink.doc, field: at.path, steps: at.steps, why: 'conflict', base: b, ours: o, theirs: t });
  return o;
}

/** Records, under `path`, the fields where the merge kept ours only because the write held the base's value. */
function newer(b: unknown, o: unknown, t: unknown, at: At, sink: Sink): void {
  if (sameValue(o, t)) return;
  if (isObj(o) && isObj(t) && (b === undefined || isObj(b))) {
    const base: Obj = isObj(b) ? b : {};
    for (const k of new Set([...Object.keys(o), ...Object.keys(t)])) newer(base[k], o[k], t[k], keyAt(at, k), sink);
    return;
  }
  const lists = idLists(b, o, t);
  if (lists) {
    const [bm, om, tm] = lists;
    for (const k of new Set([...om.keys(), ...tm.keys()])) newer(bm.get(k), om.get(k), tm.get(k), idAt(at, k), sink);
    return;
  }
  if (sameValue(b, t))
    sink.kept.push({ doc: sink.doc, field: at.path, steps: at.steps, why: 'newer', base: b, ours: o, theirs: t });
}

/**
 * Merges the documents `theirs` (the model's write) with `ours` (baton's) from `base` (the
 * writer's copy): see the file comment. A document only one side has is taken as it is (a
 * toolkit file the write did not touch is in both).
 */
export function mergeDocuments(base: Obj, ours: Obj, theirs: Obj): DocumentsMerge {
  const merged: Obj = {};
  const kept: FieldKept[] = [];
  for (const doc of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
    if (!(doc in theirs)) {
      merged[doc] = ours[doc];
      continue;
    }
    if (!(doc in ours)) {
      merged[doc] = theirs[doc];
      continue;
    }
    const sink: Sink = { doc, kept: [] };
    // Walk twice in one order: the conflicts where the merge happens, then the fields the write only held older.
    merged[doc] = merge3(base[doc], ours[doc], theirs[doc], ROOT, sink);
    newer(base[doc], ours[doc], theirs[doc], ROOT, sink);
    kept.push(...sink.kept);
  }
  return { merged, kept };
}

/** How many fields (leaves, as {@link mergeDocuments} sees them) differ between `a` and `b`. */
export function distance(a: unknown, b: unknown): number {
  if (sameValue(a, b)) return 0;
  if (isObj(a) && isObj(b)) {
    let n = 0;
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) n += distance(a[k], b[k]);
    return n;
  }
  const la = Array.isArray(a) ? byId(a) : null;
  const lb = Array.isArray(b) ? byId(b) : null;
  if (la && lb) {
    let n = 0;
    for (const k of new Set([...la.keys(), ...lb.keys()])) n += distance(la.get(k), lb.get(k));
    return n;
  }
  return 1;
}

/**
 * Of the versions of the documents the session held (oldest first), the index of the one the
 * write was most likely made from: the closest to it, field by field, the newest of equals.
 * -1 when there is none. A model rewrites the file it read with a few changes of its own, so
 * its copy is the version that differs from its write in the fewest fields.
 */
export function closestBase(versions: ReadonlyArray<Obj>, theirs: Obj): number {
  let best = -1;
  let bestD = Number.POSITIVE_INFINITY;
  versions.forEach((v, i) => {
    let d = 0;
    for (const doc of Object.keys(theirs)) d += distance(v[doc], theirs[doc]);
    if (d <= bestD) {
      best = i;
      bestD = d;
    }
  });
  return best;
}

/**
 * A copy of the documents with the kept field `f` set to `value` (`undefined`: removed), as the
 * write had it; the documents are unchanged when the path no longer leads anywhere.
 */
export function withField(docs: Obj, f: Pick<FieldKept, 'doc' | 'steps'>, value: unknown): Obj {
  const out = structuredClone(docs);
  if (!f.steps.length) {
    if (value === undefined) delete out[f.doc];
    else out[f.doc] = structuredClone(value);
    return out;
  }
  let cur: unknown = out[f.doc];
  for (const [i, step] of f.steps.entries()) {
    const last = i === f.steps.length - 1;
    if ('key' in step) {
      if (!isObj(cur)) return docs;
      if (last) {
        if (value === undefined) delete cur[step.key];
        else cur[step.key] = structuredClone(value);
        return out;
      }
      cur = cur[step.key];
    } else {
      if (!Array.isArray(cur)) return docs;
      const at = cur.findIndex((x) => idOf(x) === step.id);
      if (last) {
        if (value === undefined) {
          if (at >= 0) cur.splice(at, 1);
        } else if (at >= 0) cur[at] = structuredClone(value);
        else cur.push(structuredClone(value));
        return out;
      }
      if (at < 0) return docs;
      cur = cur[at];
    }
  }
  return out;
}
