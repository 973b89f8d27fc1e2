/**
 * Reads one bmit project folder (`00-session-state.json`, its `.bak` and `.tmp` leftovers,
 * `00-handoff.md`) into a {@link ForeignSession}. Never throws and never writes: an unusable
 * state file is reported (EMPTY_FILE / CORRUPT_FILE with `details.backup`) and the session is
 * read from the `.bak` when that parses, else from the template (every step pending).
 *
 * bmit has no session status: baton derives one (every step complete or skipped →
 * completed, else active) and leaves `rawStatus` null.
 */
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { FormatProblem, ForeignSession, ForeignUnit } from '../types.js';
import {
  bmitRules,
  recoveryEvent,
  currentStepFacts,
  defaultedFields,
  nextSubStep,
  outputsWithoutState,
  progressSinceBackup,
} from './facts.js';
import { arr, hashSources, obj, parseDocument, problem, str } from '../util.js';
import { handoffMismatches } from './handoff.js';
import { BAK_FILE, type BmitProject, HANDOFF_FILE, joinRel, STATE_FILE, TMP_FILE } from './layout.js';
import { bmitResume, positionOf, prerequisiteProblems, type Recovery } from './resume.js';
import { CURRENT_SCHEMA, SCHEMA_VERSIONS, STEP_NAMES, stepKey } from './steps.js';
import { orderedKeys, readStep } from './units.js';

/** The state a fresh project starts from (bmit's template, schema 3.0, every step pending). */
export function templateState(project: string): Record<string, unknown> {
  const steps: Record<string, unknown> = {};
  for (const [k, name] of Object.entries(STEP_NAMES)) {
    steps[k] = {
      name,
      agent: '',
      status: 'pending',
      sub_step: null,
      started: null,
      completed: null,
      artifacts: [],
      context_files_used: [],
    };
  }
  return {
    schema_version: CURRENT_SCHEMA,
    project,
    iac_tool: '',
    region: '',
    branch: '',
    updated: null,
    current_step: 0,
    decisions: {
      region: '',
      compliance: '',
      budget: '',
      architecture_pattern: '',
      deployment_strategy: '',
      complexity: 'standard',
    },
    decision_log: [],
    open_findings: [],
    review_audit: {},
    steps,
  };
}

type Doc = Record<string, unknown>;

/** Chooses the document to read: the state file, else its `.bak`, else none (template). */
function chooseDocument(
  project: string,
  state: ReadResult,
  bak: ReadResult,
  problems: FormatProblem[],
): { doc: Doc | null; from: string | null; recovery: Recovery } {
  const stateRel = state.path;
  const bakDoc = bak.kind === 'ok' ? parseDocument(bak, { sessionId: project }) : null;
  const usableBak = bakDoc?.ok ? bakDoc.value : null;
  let why: string | null = null;
  let first: FormatProblem | null = null;
  if (state.kind === 'ok') {
    const parsed = parseDocument(state, { sessionId: project });
    if (parsed.ok) {
      if (bak.kind === 'ok' && bakDoc && !bakDoc.ok)
        problems.push({
          ...bakDoc.problem,
          severity: 'warning',
          hint: 'The backup is unusable; the state file is fine, so nothing is lost yet.',
        });
      return { doc: parsed.value, from: stateRel, recovery: { unusable: false, backup: null, why: null } };
    }
    first = parsed.problem;
    why = parsed.problem.code === 'EMPTY_FILE' ? `${stateRel} is empty.` : `${stateRel} does not parse.`;
  } else if (state.kind === 'missing') {
    first = problem(
      'STATE_MISSING',
      'warning',
      `${stateRel} does not exist (only ${[bak.kind === 'ok' ? BAK_FILE : null].filter(Boolean).join(', ') || 'companion files'} found).`,
      { sessionId: project, path: stateRel },
    );
    why = `${stateRel} does not exist.`;
  } else if (state.problem.code === 'UNREADABLE') {
    // Permission denied: the file may be intact, so none of bmit's recovery rules apply (a
    // fresh start from the template would throw the progress away).
    problems.push({
      ...state.problem,
      sessionId: project,
      message: `${state.problem.message}${usableBak ? ` Until it can be read, the session is shown from ${bak.path}, which may be older.` : ''}`,
      details: { ...(state.problem.details ?? {}), backup: usableBak ? bak.path : null },
    });
    return {
      doc: usableBak,
      from: usableBak ? bak.path : null,
      recovery: {
        unusable: true,
        unreadable: true,
        backup: usableBak ? bak.path : null,
        why: `${stateRel} cannot be read (permission denied).`,
      },
    };
  } else {
    first = { ...state.problem, sessionId: project };
    why = `${stateRel} cannot be read.`;
  }
  const backup = usableBak ? bak.path : null;
  const bakNote = usableBak
    ? ` The session is read from ${bak.path}, which parses.`
    : bak.kind === 'ok'
      ? ` ${bak.path} exists but is unusable too.`
      : ' There is no backup.';
  problems.push({
    ...first,
    message: `${first.message}${bakNote}`,
    hint: usableBak
      ? `bmit's rule: restore ${bak.path} as ${STATE_FILE} (baton export writes the restored state back).`
      : "bmit's rule: create a fresh state from the template (every step pending) and log a recovery event; artifacts on disk are kept.",
    details: { ...(first.details ?? {}), backup },
  });
  return { doc: usableBak, from: usableBak ? bak.path : null, recovery: { unusable: true, backup, why } };
}

/** Schema version and legacy fields of the top level. */
function checkSchema(doc: Doc, project: string, file: string, problems: FormatProblem[]): void {
  const p = (
    code: string,
    sev: 'error' | 'warning' | 'info',
    msg: string,
    hint: string | null,
    details: Record<string, unknown>,
  ) => problems.push(problem(code, sev, msg, { sessionId: project, path: file, hint, details }));
  const raw = doc['schema_version'];
  const v = str(raw);
  if (
    raw === undefined ||
    raw === null ||
    (v !== null && v !== CURRENT_SCHEMA && (SCHEMA_VERSIONS as readonly string[]).includes(v))
  ) {
    p(
      'NEEDS_MIGRATION',
      'warning',
      `${file} has ${raw === undefined || raw === null ? 'no schema_version' : `schema_version ${JSON.stringify(raw)}`}; bmit migrates it to "3.0" before any step work.`,
      'baton export writes schema 3.0 (drops lock, stale_threshold_ms and step claims, keeps a .bak).',
      { from: v, to: CURRENT_SCHEMA },
    );
  } else if (v !== CURRENT_SCHEMA) {
    p(
      'BAD_VALUE',
      'warning',
      `${file} has schema_version ${JSON.stringify(raw)}, which bmit does not know (1.0, 2.0, 3.0); read as 3.0.`,
      'Check which tool wrote this file.',
      { field: 'schema_version', value: raw },
    );
  }
  for (const f of ['lock', 'stale_threshold_ms']) {
    if (f in doc)
      p(
        'LEGACY_FIELD',
        'warning',
        `${file} still has the v2.0 field "${f}", which schema 3.0 removed; it is dropped on export.`,
        'Migrate to schema 3.0 (baton export does).',
        { field: f, current: null, value: doc[f] },
      );
  }
  const dec = obj(doc['decisions']);
  if ('iac_tool' in dec) {
    const top = str(doc['iac_tool']);
    const inner = str(dec['iac_tool']);
    if (!top)
      p(
        'LEGACY_FIELD',
        'info',
        `${file} keeps the IaC tool in decisions.iac_tool (${JSON.stringify(inner)}); the schema has it at the top level (iac_tool).`,
        'baton reads decisions.iac_tool when iac_tool is empty and keeps both on export.',
        { field: 'decisions.iac_tool', current: 'iac_tool', value: inner },
      );
    else if (inner && inner !== top)
      p(
        'BAD_VALUE',
        'warning',
        `iac_tool is ${JSON.stringify(top)} but decisions.iac_tool is ${JSON.stringify(inner)}; the top-level field wins.`,
        'Make them agree (the resume prompt reads decisions.iac_tool).',
        { field: 'decisions.iac_tool', value: inner, top },
      );
  }
  const cs = doc['current_step'];
  if (cs !== undefined && cs !== null && !(typeof cs === 'number' && Number.isInteger(cs) && cs >= 0 && cs <= 7)) {
    p('BAD_VALUE', 'warning', `current_step is ${JSON.stringify(cs)}; bmit's validator allows an integer 0–7.`, null, {
      field: 'current_step',
      value: cs,
    });
  }
}

function decisionsOf(doc: Doc, project: string, file: string, problems: FormatProblem[]): ForeignSession['decisions'] {
  const out: ForeignSession['decisions'] = [];
  const noId: number[] = [];
  arr(doc['decision_log']).forEach((raw, i) => {
    const d = obj(raw);
    const id = str(d['id']);
    if (id === null) noId.push(i);
    else if (!/^D\d+$/.test(id))
      problems.push(
        problem('BAD_VALUE', 'warning', `decision_log[${i}].id ${JSON.stringify(id)} does not match D<number>.`, {
          sessionId: project,
          path: file,
          details: { field: `decision_log[${i}].id`, value: id },
        }),
      );
    const text = str(d['decision']);
    out.push({
      id,
      title: str(d['title']) ?? text ?? '',
      choice: str(d['choice']) ?? text ?? '',
      rationale: str(d['rationale']),
      alternatives: arr(d['alternatives'])
        .map((a) => str(a))
        .filter((a): a is string => a !== null),
      agent: str(d['agent']),
      unitId: stepKey(d['step']),
      time: str(d['timestamp']),
    });
  });
  if (noId.length > 0) {
    problems.push(
      problem(
        'MISSING_FIELD',
        'info',
        `decision_log entr${noId.length === 1 ? 'y' : 'ies'} ${noId.join(', ')} ha${noId.length === 1 ? 's' : 've'} no id (bmit's schema wants D<number>).`,
        { sessionId: project, path: file, details: { field: 'decision_log[].id', entries: noId, assumed: null } },
      ),
    );
  }
  return out;
}

function findingsOf(doc: Doc): ForeignSession['findings'] {
  return arr(doc['open_findings']).map((f) => {
    if (typeof f === 'string') return { text: f, severity: null, unitId: null, time: null };
    const o = obj(f);
    return {
      text: str(o['message']) ?? str(o['title']) ?? str(o['finding']) ?? JSON.stringify(f),
      severity: str(o['severity']) ?? str(o['type']),
      unitId: stepKey(o['step']),
      time: str(o['timestamp']),
    };
  });
}

/**
 * The steps of the state document in bmit's order (unknown keys after the known ones), with
 * problems about the project name, a missing steps object and absent or unknown steps (only
 * when `hasDoc`: the template has none).
 */
function stepsOf(
  doc: Record<string, unknown>,
  hasDoc: boolean,
  id: string,
  file: string,
  problems: FormatProblem[],
): { steps: Record<string, unknown>; keys: string[]; missing: string[] } {
  if (hasDoc && str(doc['project']) !== null && str(doc['project']) !== id) {
    problems.push(
      problem(
        'BAD_VALUE',
        'info',
        `project is ${JSON.stringify(doc['project'])} but the folder is ${JSON.stringify(id)}; bmit names a project by its folder.`,
        { sessionId: id, path: file, details: { field: 'project', value: doc['project'], folder: id } },
      ),
    );
  }
  const stepsRaw = doc['steps'];
  if (
    hasDoc &&
    (stepsRaw === undefined || stepsRaw === null || typeof stepsRaw !== 'object' || Array.isArray(stepsRaw))
  ) {
    problems.push(
      problem('MISSING_FIELD', 'error', `${file} has no steps object; every step is read as pending.`, {
        sessionId: id,
        path: file,
        hint: 'Restore the steps from the template.',
        details: { field: 'steps', assumed: 'template' },
      }),
    );
  }
  const steps = obj(stepsRaw);
  const { keys, missing, unknown } = orderedKeys(steps);
  if (hasDoc && missing.length > 0 && missing.length < 8) {
    problems.push(
      problem(
        'MISSING_FIELD',
        'info',
        `${missing.length === 1 ? 'step' : 'steps'} ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} absent; read as pending from the template.`,
        { sessionId: id, path: file, details: { field: missing.map((k) => `steps.${k}`), assumed: 'pending' } },
      ),
    );
  }
  for (const k of unknown) {
    problems.push(
      problem(
        'BAD_VALUE',
        'warning',
        `steps.${k} is not a bmit step (1, 2, 3, 3_5, 4, 5, 6, 7); kept after the known steps.`,
        { sessionId: id, path: file, details: { field: `steps.${k}` } },
      ),
    );
  }
  return { steps, keys, missing };
}

/** The handoff is a companion of the state file: where it disagrees is reported (the JSON wins). */
function handoffProblems(
  handoff: ReadResult & { kind: 'ok' },
  units: ForeignUnit[],
  doc: Record<string, unknown>,
  id: string,
  problems: FormatProblem[],
): void {
  const mism = handoffMismatches(handoff.text, units, doc);
  if (mism.length > 0) {
    problems.push(
      problem(
        'STALE_COMPANION',
        'warning',
        `${handoff.path} disagrees with the state file: ${mism.map((m) => `${m.what} is "${m.handoff}" there but "${m.json}" in the JSON`).join('; ')}.`,
        {
          sessionId: id,
          path: handoff.path,
          hint: 'The JSON wins; baton export regenerates the handoff from it.',
          details: { mismatches: mism },
        },
      ),
    );
  }
}

/** Reads a project. `repoRootRel` is the root-relative folder that holds `agent-output/`, or null. */
export async function readProject(
  dir: SafeDir,
  proj: BmitProject,
  repoRootRel: string | null,
): Promise<ForeignSession> {
  const id = proj.name;
  const rel = (f: string) => joinRel(proj.rel, f);
  const [state, bak, tmp, handoff] = await Promise.all([
    dir.read(rel(STATE_FILE)),
    dir.read(rel(BAK_FILE)),
    dir.read(rel(TMP_FILE)),
    dir.read(rel(HANDOFF_FILE)),
  ]);
  const problems: FormatProblem[] = [];
  for (const r of [bak, tmp, handoff])
    if (r.kind === 'unsafe' || r.kind === 'error') problems.push({ ...r.problem, sessionId: id });
  const chosen = chooseDocument(id, state, bak, problems);
  if (tmp.kind === 'ok') {
    problems.push(
      problem('LEFTOVER_TEMP', 'warning', `${tmp.path} is left over from an interrupted write; bmit never reads it.`, {
        sessionId: id,
        path: tmp.path,
        hint: `Remove it once ${STATE_FILE} is confirmed good.`,
        details: { parses: parseDocument(tmp).ok },
      }),
    );
  }
  const doc = chosen.doc ?? templateState(id);
  const file = chosen.from ?? rel(STATE_FILE);
  if (chosen.doc) checkSchema(doc, id, file, problems);
  const { steps, keys, missing } = stepsOf(doc, chosen.doc !== null, id, file, problems);
  const ctx = { dir, sessionId: id, file, projectRel: proj.rel, repoRootRel };
  const units: ForeignUnit[] = [];
  const tpl = obj(templateState(id)['steps']);
  for (const k of keys) units.push(await readStep(k, k in steps ? steps[k] : tpl[k], k in steps, ctx, problems));
  const prereq = prerequisiteProblems(units, id, file);
  problems.push(...prereq);
  const resume = bmitResume(units, prereq, chosen.recovery);
  // Issue 14 facts (facts.ts cites the rules).
  const atStep = resume.unitId !== null ? (units.find((u) => u.id === resume.unitId) ?? null) : null;
  if (atStep && (resume.action === 'skip-to-substep' || resume.action === 'restart' || resume.action === 'start'))
    resume.nextSubStep = nextSubStep(atStep.id, resume.action === 'skip-to-substep' ? atStep.subStep : null);
  const cur = chosen.doc ? currentStepFacts(doc, units, id, file, problems) : { recorded: null, choices: [] };
  if (cur.choices.length) resume.choices = cur.choices;
  if (chosen.recovery.backup && chosen.from === chosen.recovery.backup)
    progressSinceBackup(state, chosen.doc, chosen.recovery.backup, id, problems);
  const defaulted = defaultedFields(chosen.doc, missing, id, file, problems);
  const orphanOutputs = await outputsWithoutState(dir, proj.rel, units, id, problems);
  if (chosen.recovery.unusable && !chosen.recovery.unreadable && !chosen.recovery.backup && handoff.kind === 'ok') {
    // bmit's orchestrator falls back to the handoff (then an artifact scan) when the JSON is gone.
    resume.reason += ` ${handoff.path} exists: bmit's orchestrator reads it (then scans the artifacts) to see where the project stood before starting over.`;
  }
  const pos = chosen.recovery.unreadable
    ? null
    : chosen.recovery.unusable && !chosen.recovery.backup
      ? (units[0] ?? null)
      : positionOf(units);
  if (handoff.kind === 'ok') handoffProblems(handoff, units, doc, id, problems);
  const allDone = units.length > 0 && units.every((u) => u.status === 'completed' || u.status === 'skipped');
  const started = units
    .map((u) => u.startedAt)
    .filter((t): t is string => t !== null)
    .sort();
  const documents: Record<string, unknown> = {};
  if (chosen.doc && chosen.from) documents[chosen.from] = chosen.doc;
  if (handoff.kind === 'ok') documents[handoff.path] = handoff.text;
  const reads = [state, bak, tmp, handoff];
  return {
    format: 'bmit',
    id,
    title: str(doc['project']) || id,
    rawStatus: null,
    status: allDone ? 'completed' : 'active',
    active: !allDone,
    archived: false,
    path: rel(STATE_FILE),
    sources: reads.filter((r) => r.kind === 'ok').map((r) => r.path),
    createdAt: started[0] ?? null,
    updatedAt: str(doc['updated']),
    units,
    position: { unitId: pos?.id ?? null, subStep: pos?.subStep ?? null },
    resume,
    unresolvedErrors: [],
    tokens: null,
    decisions: decisionsOf(doc, id, file, problems),
    findings: findingsOf(doc),
    notes: [],
    milestones: [],
    artifacts: [],
    contextSummary: null,
    checkpoints: [],
    problems,
    documents,
    sourceHash: hashSources(reads),
    rules: bmitRules(
      cur.choices,
      [
        ...(resume.nextSubStep
          ? [
              `After ${resume.subStep ?? 'the start of the step'}, the next sub-step checkpoint is ${resume.nextSubStep}.`,
            ]
          : []),
        ...orphanOutputs.map((f) => `${f} exists without the state recording its step.`),
      ],
      chosen.recovery.unusable && !chosen.recovery.unreadable && !chosen.recovery.backup
        ? recoveryEvent(chosen.recovery.why)
        : null,
    ),
    recordedPosition: cur.recorded,
    defaulted,
  };
}
