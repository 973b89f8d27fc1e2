/**
 * Writes a baton session as a bmit project: `agent-output/<project>/00-session-state.json`
 * in schema 3.0 (the v2.0 `lock`, `stale_threshold_ms` and step `claim`s dropped, `updated`
 * bumped, every field baton does not map kept from the imported document) with `backup: true`
 * so the previous file stays as `.bak` (bmit's write rule), and `00-handoff.md` regenerated
 * from the JSON (which wins over the old companion).
 *
 * Where in `out`: a folder holding `agent-output/` gets `agent-output/<project>/`; an
 * `agent-output` folder gets `<project>/`; the project's own folder is written in place.
 * baton phases become steps keyed by the phase id (bmit's own ids "1" … "7", "3_5" for
 * imported sessions); bmit has no failed status, so a failed phase is written in_progress
 * (resumable, as bmit keeps interrupted work), and a blocked one pending.
 */
import path from 'node:path';
import type { Phase, SessionState } from '../../domain/state.js';
import { foreignTime } from '../import.js';
import type { SafeDir } from '../safe-dir.js';
import type { ExportInput, ForeignUnit, FormatProblem, WritePlan } from '../types.js';
import { bornSteps } from './born.js';
import { arr, obj, parseDocument, str } from '../util.js';
import { renderHandoff } from './handoff.js';
import { findProjects, HANDOFF_FILE, joinRel, STATE_FILE } from './layout.js';
import { templateState } from './read.js';
import {
  CURRENT_SCHEMA,
  denormalizeStatus,
  normalizeStatus,
  STEP_NAMES,
  STEP_ORDER,
  stepKey,
  stepRank,
} from './steps.js';

type Doc = Record<string, unknown>;

/** The imported state document, if the session came from bmit. */
export function originalState(original: Record<string, unknown> | null): Doc | null {
  if (!original) return null;
  const keys = Object.keys(original);
  const k =
    keys.find((x) => x === STATE_FILE || x.endsWith(`/${STATE_FILE}`)) ??
    keys.find((x) => x === `${STATE_FILE}.bak` || x.endsWith(`/${STATE_FILE}.bak`));
  const v = k ? original[k] : null;
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : null;
}

/** bmit's timestamp style (second precision, Z). */
export function bmitTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `orig` when it names the same instant as `t` (keeps the file's spelling), else `t`. */
function sameTime(orig: unknown, t: string | null): string | null {
  if (t === null) return null;
  const o = str(orig);
  if (o !== null && Date.parse(o) === Date.parse(t)) return o;
  return t;
}

function readPaths(p: Phase): string[] {
  const fr = p.metadata['filesRead'];
  const fromMeta = arr(fr)
    .map((f) => (typeof f === 'string' ? f : str(obj(f)['path'])))
    .filter((f): f is string => f !== null);
  return fromMeta;
}

function writeStep(p: Phase, orig: Doc, input: ExportInput): Doc {
  const meta = { ...p.metadata };
  delete meta['claim'];
  delete meta['filesRead'];
  const origStatus = str(orig['status']);
  const status =
    origStatus !== null && normalizeStatus(origStatus).status === (p.status as string)
      ? origStatus
      : denormalizeStatus(p.status);
  const artifacts = p.files.filter((f) => f.action !== 'deleted').map((f) => f.path);
  const agent = p.agents[0] ?? str(orig['agent']) ?? '';
  // bmit clears sub_step when a step completes; a file that was already complete with its
  // sub_step left in place (the real example does this) is written as it was.
  const keptAsIs = origStatus === 'complete' && str(orig['sub_step']) === p.subStep;
  const subStep = p.status === 'completed' && !keptAsIs ? null : p.subStep;
  const step: Doc = { ...orig, ...meta };
  delete step['claim'];
  Object.assign(step, {
    name: p.name,
    agent,
    status,
    sub_step: subStep,
    started: sameTime(orig['started'], foreignTime(input, `phase:${p.id}:startedAt`, p.startedAt)),
    completed: sameTime(orig['completed'], foreignTime(input, `phase:${p.id}:completedAt`, p.completedAt)),
    artifacts,
    context_files_used: readPaths(p),
  });
  return step;
}

function writeDecisions(input: ExportInput, orig: unknown[]): unknown[] {
  const s = input.state;
  const used = new Set<number>();
  let next = 1 + Math.max(0, ...orig.map((d) => Number(/^D(\d+)$/.exec(str(obj(d)['id']) ?? '')?.[1] ?? 0)));
  return s.decisions.map((d, i) => {
    let j = orig.findIndex((o, k) => !used.has(k) && str(obj(o)['id']) !== null && str(obj(o)['id']) === d.id);
    if (j === -1)
      j = orig.findIndex((o, k) => !used.has(k) && (str(obj(o)['title']) ?? str(obj(o)['decision'])) === d.title);
    if (j === -1 && i < orig.length && !used.has(i)) j = i;
    const o = j === -1 ? null : obj(orig[j]);
    if (j !== -1) used.add(j);
    const e: Doc = o ? { ...o } : { id: /^D\d+$/.test(d.id) ? d.id : `D${next++}` };
    const stepOut = (): unknown => {
      if (o && stepKey(o['step']) === d.phaseId) return o['step'];
      if (d.phaseId === null) return o?.['step'] ?? null;
      return /^\d+$/.test(d.phaseId) ? Number(d.phaseId) : d.phaseId;
    };
    if (!o || 'step' in o || d.phaseId !== null) e['step'] = stepOut();
    if (!o || 'agent' in o || d.agent) e['agent'] = d.agent ?? '';
    const hasText = o && ('title' in o || 'choice' in o);
    if (o && 'decision' in o) e['decision'] = d.choice || d.title;
    if (!o || hasText || !('decision' in o)) {
      e['title'] = d.title;
      e['choice'] = d.choice;
    }
    if (!o || 'rationale' in o || d.rationale !== null) e['rationale'] = d.rationale ?? '';
    if ((o && 'alternatives' in o) || d.alternatives.length > 0) e['alternatives'] = d.alternatives;
    const time = sameTime(o?.['timestamp'], foreignTime(input, `decision:${d.id}`, d.time));
    if (time !== null || (o && 'timestamp' in o)) e['timestamp'] = time;
    else delete e['timestamp'];
    return e;
  });
}

function writeFindings(s: SessionState, orig: unknown[]): unknown[] {
  const used = new Set<number>();
  return s.findings
    .filter((f) => !f.removed)
    .map((f) => {
      const j = orig.findIndex((o, k) => {
        if (used.has(k)) return false;
        if (typeof o === 'string') return o === f.text;
        const x = obj(o);
        return (str(x['message']) ?? str(x['title']) ?? str(x['finding']) ?? JSON.stringify(o)) === f.text;
      });
      if (j !== -1) {
        used.add(j);
        return orig[j];
      }
      return f.text;
    });
}

function currentStep(origValue: unknown, steps: Doc): number {
  const keys = Object.keys(steps).sort((a, b) => stepRank(a) - stepRank(b));
  const st = (k: string) => str(obj(steps[k])['status']);
  const pos = keys.find((k) => st(k) === 'in_progress') ?? keys.find((k) => st(k) === 'pending');
  const derived = pos === undefined ? 7 : Math.floor(Number(pos.replace('_', '.'))) || 0;
  if (
    typeof origValue === 'number' &&
    Number.isInteger(origValue) &&
    (pos === undefined ? origValue === 7 : derived <= origValue)
  )
    return origValue;
  return derived;
}

/** Units for the handoff, read straight from the document written. */
function unitsOf(doc: Doc): ForeignUnit[] {
  const steps = obj(doc['steps']);
  return Object.keys(steps)
    .sort((a, b) => stepRank(a) - stepRank(b))
    .map((k) => {
      const s = obj(steps[k]);
      const raw = str(s['status']);
      return {
        id: k,
        name: str(s['name']) ?? STEP_NAMES[k] ?? k,
        status: normalizeStatus(raw).status,
        rawStatus: raw,
        subStep: str(s['sub_step']),
        retries: null,
        agents: [],
        blockedBy: [],
        startedAt: str(s['started']),
        completedAt: str(s['completed']),
        files: arr(s['artifacts']).map((a) => ({ path: String(a), action: 'created' as const })),
        errors: [],
        metadata: {},
      };
    });
}

/** Folder (relative to `out`) the project is written to. */
async function targetFolder(out: SafeDir, project: string): Promise<string> {
  const found = await findProjects(out);
  if (found.layout === 'root') return joinRel('agent-output', project);
  if (found.layout === 'project') {
    const r = await out.read(STATE_FILE);
    const p = r.kind === 'ok' ? parseDocument(r) : null;
    const name = p?.ok ? str(p.value['project']) : null;
    if (path.basename(out.root) === project || name === project) return '';
    return joinRel('agent-output', project);
  }
  if (found.layout === 'agent-output' || path.basename(out.root) === 'agent-output') return project;
  return joinRel('agent-output', project);
}

/** The write plan of a session in bmit's layout. */
export async function bmitExportPlan(input: ExportInput, out: SafeDir): Promise<WritePlan> {
  const s = input.state;
  const orig = originalState(input.original);
  const base: Doc = orig ? { ...orig } : templateState(input.foreignId);
  delete base['lock'];
  delete base['stale_threshold_ms'];
  const origSteps = obj(base['steps']);
  const folder = await targetFolder(out, input.foreignId);
  if (!orig) return bornPlan(input, base, folder);
  const steps: Doc = {};
  const phaseIds = new Set(s.phases.map((p) => p.id));
  for (const k of STEP_ORDER) {
    const p = s.phases.find((x) => x.id === k);
    if (p) steps[k] = writeStep(p, obj(origSteps[k]), input);
    else if (k in origSteps || (!orig && s.phases.some((x) => STEP_NAMES[x.id] !== undefined))) {
      const o = { ...obj(origSteps[k] ?? obj(templateState(input.foreignId)['steps'])[k]) };
      delete o['claim'];
      steps[k] = o;
    }
  }
  for (const [k, v] of Object.entries(origSteps)) if (!(k in steps) && !phaseIds.has(k)) steps[k] = v;
  for (const p of s.phases) if (!(p.id in steps)) steps[p.id] = writeStep(p, obj(origSteps[p.id]), input);
  const doc: Doc = { ...base };
  doc['schema_version'] = CURRENT_SCHEMA;
  if (!str(doc['project'])) doc['project'] = input.foreignId;
  // "Always update `updated`" on a write that changes the state (seed 002); nothing changed
  // since the import: `updated` and the position field are written as they were.
  const keep = input.unchangedSinceImport === true;
  doc['updated'] = keep && base['updated'] !== undefined ? base['updated'] : bmitTime(input.now);
  doc['current_step'] =
    keep && base['current_step'] !== undefined ? base['current_step'] : currentStep(base['current_step'], steps);
  doc['decision_log'] = writeDecisions(input, arr(base['decision_log']));
  doc['open_findings'] = writeFindings(s, arr(base['open_findings']));
  doc['steps'] = steps;
  return planFiles(doc, folder, []);
}

function planFiles(doc: Doc, folder: string, problems: FormatProblem[]): WritePlan {
  return {
    writes: [
      { path: joinRel(folder, STATE_FILE), content: `${JSON.stringify(doc, null, 2)}\n`, backup: true },
      { path: joinRel(folder, HANDOFF_FILE), content: renderHandoff(doc, unitsOf(doc)), backup: false },
    ],
    removes: [],
    ...(problems.length > 0 ? { problems } : {}),
  };
}

/** A session born in baton: bmit's template with the phases that are bmit steps written in (born.ts). */
function bornPlan(input: ExportInput, base: Doc, folder: string): WritePlan {
  const s = input.state;
  const { byKey, problems } = bornSteps(s, input.foreignId, joinRel(folder, STATE_FILE));
  const template = obj(base['steps']);
  const steps: Doc = {};
  for (const k of STEP_ORDER) {
    const p = byKey.get(k);
    steps[k] = p ? writeStep(p, obj(template[k]), input) : { ...obj(template[k]) };
  }
  const doc: Doc = { ...base, schema_version: CURRENT_SCHEMA, updated: bmitTime(input.now) };
  doc['current_step'] = currentStep(null, steps);
  doc['decision_log'] = writeDecisions(input, []);
  doc['open_findings'] = writeFindings(s, []);
  doc['steps'] = steps;
  return planFiles(doc, folder, problems);
}
