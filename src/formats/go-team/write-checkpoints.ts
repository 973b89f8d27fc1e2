/**
 * Go Team files the export writes back rather than regenerates: the imported `cp-*.json`
 * checkpoints and `rollback-history.json`, byte for byte (their documents are the text as
 * read), where the destination lacks them. A damaged checkpoint (unreadable, no state, marked
 * invalid, or failing its checksum) is not handed back as if it
 * were good: it is dropped (not written), its manifest entry is marked `valid: false`, and
 * `recovery.json` and the other pointers naming it are moved to the last valid checkpoint
 * before it (or, with none, the checkpoint option is removed and the live state recommended),
 * and the output says so. An unreadable rollback history is written back as it is (its damage
 * stays visible: it names no checkpoint to resume from).
 */
import type { SessionState } from '../../domain/state.js';
import type { SafeDir } from '../safe-dir.js';
import type { FormatProblem, WritePlan } from '../types.js';
import { arr, obj, problem, str } from '../util.js';
import { verifyChecksum } from './checksum.js';
import { join } from './layout.js';
import { STEPS } from './steps.js';

type Doc = Record<string, unknown>;

/** Why a checkpoint document cannot be restored, or null when it is sound. */
export function checkpointDamage(doc: unknown): string | null {
  let d: unknown = doc;
  let text: string | null = null;
  if (typeof doc === 'string') {
    text = doc.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
    if (text.trim() === '') return 'is empty';
    try {
      d = JSON.parse(text);
    } catch {
      return 'does not parse as JSON';
    }
  }
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return 'is not a JSON object';
  const o = d as Doc;
  if (o.state === null || typeof o.state !== 'object' || Array.isArray(o.state)) return 'has no state object';
  if (o.valid === false && o.invalidated_by === undefined) return 'is marked invalid';
  // A sha256 digest matching no canonical form (Python's json.dumps with its numbers as
  // written included, so a valid file holding 0.0 matches) is damage, as inspect reads it;
  // a placeholder that is no digest is only a doubt, written back. Only the text as read
  // can be checked: a parsed document has lost its number spellings.
  if (text !== null && verifyChecksum(o, text).result === 'mismatch') return 'fails its checksum';
  return null;
}

/** The checkpoint documents of the session by id (file name without `.json`). */
function checkpointDocs(mine: Map<string, unknown>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, doc] of mine) if (/^cp-.*\.json$/.test(name)) out.set(name.slice(0, -5), doc);
  return out;
}

/** What {@link planVerbatim} decided: the checkpoints dropped and the one to use instead of each. */
export interface Dropped {
  /** Dropped checkpoint id → why. */
  why: Map<string, string>;
  /** Dropped checkpoint id → the last valid checkpoint before it, or null. */
  instead: Map<string, string | null>;
}

/**
 * Plans the verbatim files (see the module comment) and returns the damaged checkpoints; the
 * manifest's entries of dropped checkpoints are marked invalid in `manifest`.
 */
export async function planVerbatim(
  mine: Map<string, unknown>,
  out: SafeDir,
  sdir: string,
  id: string,
  manifest: Doc,
  writes: WritePlan['writes'],
  problems: FormatProblem[],
): Promise<Dropped> {
  const docs = checkpointDocs(mine);
  const dropped: Dropped = { why: new Map(), instead: new Map() };
  const listed = arr(manifest.checkpoints).map(obj);
  const order = [...new Set([...listed.map((c) => str(c.id)).filter((x): x is string => x !== null), ...docs.keys()])];
  for (const [cid, doc] of docs) {
    const why = checkpointDamage(doc);
    if (why !== null && !(await out.exists(join(sdir, `${cid}.json`)))) dropped.why.set(cid, why);
  }
  const sound = (cid: string) =>
    docs.has(cid) &&
    !dropped.why.has(cid) &&
    listed.find((c) => str(c.id) === cid)?.valid !== false &&
    listed.find((c) => str(c.id) === cid)?.invalidated_by === undefined;
  for (const cid of dropped.why.keys()) {
    const before = order.slice(0, order.indexOf(cid)).filter(sound);
    dropped.instead.set(cid, before[before.length - 1] ?? null);
  }
  manifest.checkpoints = arr(manifest.checkpoints).map((c) =>
    dropped.why.has(str(obj(c).id) ?? '') ? { ...obj(c), valid: false } : c,
  );
  for (const [name, doc] of mine) {
    if (MANAGED.has(name) || (await out.exists(join(sdir, name)))) continue;
    const rel = join(sdir, name);
    if (name.startsWith('cp-') && dropped.why.has(name.slice(0, -5))) continue;
    writes.push({ path: rel, content: typeof doc === 'string' ? doc : json(doc), backup: false });
  }
  for (const [cid, why] of dropped.why) {
    const to = dropped.instead.get(cid) ?? null;
    problems.push(
      problem(
        'CORRUPT_CHECKPOINT',
        'warning',
        `Checkpoint ${cid} of session ${id} ${why}: it was dropped (not written) and marked valid: false in manifest.json; ${to ? `what named it (recovery.json, current checkpoint) now names ${to}, the last valid checkpoint before it` : 'no valid checkpoint precedes it, so recovery.json no longer offers a checkpoint'}.`,
        {
          sessionId: id,
          path: join(sdir, `${cid}.json`),
          hint: 'Rebuild it from its git commit with *cp-rebuild if it matters.',
          details: { checkpoint: cid, dropped: true, instead: to },
        },
      ),
    );
  }
  return dropped;
}

/** Files of a session folder the writer regenerates; every other one is written back verbatim. */
export const MANAGED = new Set(['state.json', 'manifest.json', 'recovery.json']);

export function json(v: unknown): string {
  return `${JSON.stringify(v, null, 2)}\n`;
}

/** The checkpoint to name instead of `cid` (itself when it was not dropped). */
export function replacement(d: Dropped, cid: unknown): unknown {
  return typeof cid === 'string' && d.instead.has(cid) ? d.instead.get(cid) : cid;
}

/** `recovery.json` with its checkpoint options moved off dropped checkpoints (see the module comment). */
export function repairRecovery(rec: Doc, d: Dropped): Doc {
  if (d.why.size === 0) return rec;
  const options = arr(rec.recovery_options).flatMap((o) => {
    const x = obj(o);
    if (str(x.type) !== 'checkpoint' || !d.instead.has(str(x.target) ?? '')) return [o];
    const to = d.instead.get(str(x.target)!) ?? null;
    return to ? [{ ...x, target: to, data_loss: `all work done after ${to}` }] : [];
  });
  const out: Doc = { ...rec, recovery_options: options };
  if (rec.recommended === 'checkpoint' && !options.some((o) => str(obj(o).type) === 'checkpoint'))
    out.recommended = 'live_state';
  return out;
}

/** recovery.json for a session interrupted in baton that has none: Go Team's three recovery options. */
export function newRecovery(
  state: SessionState,
  id: string,
  nowIso: string,
  currentStep: number,
  cp: string | null,
  agent: string | null,
): Record<string, unknown> {
  const def = STEPS[currentStep - 1] ?? STEPS[0];
  const reason = state.statusCause?.cause ?? null;
  return {
    session_id: id,
    interrupted_at: state.statusCause?.at ?? nowIso,
    interrupt_reason:
      reason === 'timeout' || reason === 'crash' || reason === 'disconnect' || reason === 'error' ? reason : 'crash',
    last_known_state: { step: currentStep, step_name: def?.name ?? null, agent, action: state.contextSummary },
    recovery_options: [
      ...(cp
        ? [
            {
              type: 'checkpoint',
              target: cp,
              description: 'Resume from last checkpoint (safe)',
              data_loss: `all work done after ${cp}`,
            },
          ]
        : []),
      {
        type: 'live_state',
        target: 'state.json',
        description: 'Resume from last auto-save (experimental)',
        data_loss: '~30 seconds of work',
      },
      { type: 'fresh_start', target: null, description: 'Start fresh from step 1', data_loss: 'All progress' },
    ],
    recommended: cp ? 'checkpoint' : 'live_state',
    auto_resume_enabled: true,
  };
}
