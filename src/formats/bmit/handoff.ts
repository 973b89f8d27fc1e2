/**
 * `00-handoff.md`, bmit's human companion of the state file: checked against the JSON (which
 * wins on any disagreement) and regenerated from it on export. Only what the orchestrator
 * writes in a recognisable shape is compared: the step checklist (`- [x] Step 2 …`), a title
 * `(Step N complete)`, lines naming a step as current/blocked/in progress, and the key
 * decisions architecture pattern, region and IaC tool.
 */
import type { ForeignUnit } from '../types.js';
import { obj, str } from '../util.js';
import { stepKey, stepLabel } from './steps.js';

/** One thing the handoff says that the JSON contradicts. */
export interface HandoffMismatch {
  what: string;
  handoff: string;
  json: string;
}

const STEP_NO = '(\\d+(?:[._]\\d+)?)';
const CHECK_RE = new RegExp(`^\\s*[-*]\\s*\\[([ xX-])\\]\\s*Step\\s+${STEP_NO}`, 'i');
const TITLE_RE = new RegExp(`^#.*\\(\\s*Step\\s+${STEP_NO}\\s+complete\\s*\\)`, 'i');
const NAMED_RE = new RegExp(`Step\\s+${STEP_NO}\\s*(?:is\\s+)?(?:[—:-]\\s*)?(blocked|in[ _]progress|current)\\b`, 'i');
const CURRENT_RE = new RegExp(`\\b(?:current|next)\\s+step\\s*[:=]?\\s*(?:is\\s+)?(?:step\\s+)?${STEP_NO}`, 'i');

function loose(v: string): string {
  return v.trim().toLowerCase();
}

/** Decision lines the handoff carries, with the JSON value each is compared to. */
function decisionValues(doc: Record<string, unknown>): Array<{ label: RegExp; what: string; json: string | null }> {
  const d = obj(doc['decisions']);
  return [
    {
      label: /^\s*[-*]\s*Architecture Pattern:\s*(.+)$/i,
      what: 'architecture pattern',
      json: str(d['architecture_pattern']),
    },
    { label: /^\s*[-*]\s*Region:\s*(.+)$/i, what: 'region', json: str(d['region']) || str(doc['region']) },
    { label: /^\s*[-*]\s*IaC Tool:\s*(.+)$/i, what: 'IaC tool', json: str(doc['iac_tool']) || str(d['iac_tool']) },
  ];
}

/** What the handoff says that the state file contradicts; [] when it agrees. */
export function handoffMismatches(text: string, units: ForeignUnit[], doc: Record<string, unknown>): HandoffMismatch[] {
  const byId = new Map(units.map((u) => [u.id, u]));
  const out: HandoffMismatch[] = [];
  const seen = new Set<string>();
  const add = (m: HandoffMismatch) => {
    const k = `${m.what}|${m.handoff}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(m);
    }
  };
  const done = units.filter((u) => u.status === 'completed');
  const lastDone = done.length > 0 ? done[done.length - 1]! : null;
  const decisions = decisionValues(doc);
  for (const line of text.split('\n')) {
    const title = TITLE_RE.exec(line);
    if (title) {
      const k = stepKey(title[1])!;
      if (!lastDone || lastDone.id !== k)
        add({
          what: 'last completed step',
          handoff: `step ${k}`,
          json: lastDone ? stepLabel(lastDone.id, lastDone.name) : 'none',
        });
    }
    const check = CHECK_RE.exec(line);
    if (check) {
      const k = stepKey(check[2])!;
      const u = byId.get(k);
      const ticked = check[1]!.toLowerCase() === 'x';
      if (u && check[1] !== '-') {
        const isDone = u.status === 'completed' || u.status === 'skipped';
        if (ticked !== isDone)
          add({
            what: `${stepLabel(k, u.name)} checklist`,
            handoff: ticked ? 'done' : 'not done',
            json: u.rawStatus ?? u.status,
          });
      }
    }
    for (const re of [NAMED_RE, CURRENT_RE]) {
      const m = re.exec(line);
      if (!m) continue;
      const k = stepKey(m[1])!;
      const u = byId.get(k);
      if (u && (u.status === 'completed' || u.status === 'skipped')) {
        const said = re === NAMED_RE ? m[2]!.toLowerCase().replace('_', ' ') : 'current';
        add({ what: `${stepLabel(k, u.name)} status`, handoff: said, json: u.rawStatus ?? u.status });
      }
    }
    for (const dv of decisions) {
      const m = dv.label.exec(line);
      if (!m || !dv.json) continue;
      const h = loose(m[1]!);
      const j = loose(dv.json);
      if (!h.includes(j) && !j.includes(h)) add({ what: dv.what, handoff: m[1]!.trim(), json: dv.json });
    }
  }
  return out;
}

function showStep(k: string): string {
  return k.replace('_', '.');
}

/** The handoff bmit's orchestrator would write for this state (JSON is the source). */
export function renderHandoff(doc: Record<string, unknown>, units: ForeignUnit[]): string {
  const project = str(doc['project']) ?? 'project';
  const done = units.filter((u) => u.status === 'completed');
  const lastDone = done.length > 0 ? done[done.length - 1]! : null;
  const current =
    units.find((u) => u.status === 'in_progress') ??
    units.find((u) => u.status === 'pending' || u.status === 'failed' || u.status === 'blocked') ??
    null;
  const iac = str(doc['iac_tool']) || str(obj(doc['decisions'])['iac_tool']) || '';
  const lines: string[] = [];
  lines.push(`# ${project} — Handoff (${lastDone ? `Step ${showStep(lastDone.id)} complete` : 'not started'})`, '');
  lines.push(`Updated: ${str(doc['updated']) ?? ''} | IaC: ${iac || '-'} | Branch: ${str(doc['branch']) || '-'}`, '');
  lines.push('Generated from 00-session-state.json, which wins over this file.', '');
  lines.push('## Steps', '');
  for (const u of units) {
    const box = u.status === 'completed' ? 'x' : u.status === 'skipped' ? '-' : ' ';
    const extra = u.subStep && u.status !== 'completed' ? `, sub-step ${u.subStep}` : '';
    lines.push(`- [${box}] Step ${showStep(u.id)} ${u.name} — ${u.rawStatus ?? u.status}${extra}`);
  }
  lines.push('');
  lines.push(
    current
      ? `Current step: ${showStep(current.id)} (${current.name}), ${current.rawStatus ?? current.status}${current.subStep ? `, sub-step ${current.subStep}` : ''}`
      : 'Current step: none (every step is complete or skipped)',
    '',
  );
  const d = obj(doc['decisions']);
  const keyLines: string[] = [];
  if (str(d['region']) || str(doc['region'])) keyLines.push(`- Region: ${str(d['region']) || str(doc['region'])}`);
  for (const [k, label] of [
    ['compliance', 'Compliance'],
    ['budget', 'Budget'],
  ] as const)
    if (str(d[k])) keyLines.push(`- ${label}: ${str(d[k])}`);
  if (iac) keyLines.push(`- IaC Tool: ${iac}`);
  for (const [k, label] of [
    ['architecture_pattern', 'Architecture Pattern'],
    ['deployment_strategy', 'Deployment Strategy'],
    ['complexity', 'Complexity'],
  ] as const)
    if (str(d[k])) keyLines.push(`- ${label}: ${str(d[k])}`);
  if (keyLines.length > 0) lines.push('## Key Decisions', '', ...keyLines, '');
  const findings = Array.isArray(doc['open_findings']) ? (doc['open_findings'] as unknown[]) : [];
  if (findings.length > 0) {
    lines.push('## Open Challenger Findings', '');
    for (const f of findings) {
      const o = obj(f);
      lines.push(`- ${typeof f === 'string' ? f : (str(o['message']) ?? str(o['title']) ?? JSON.stringify(f))}`);
    }
    lines.push('');
  }
  const artifacts = units.flatMap((u) => u.files.filter((f) => f.action !== 'read').map((f) => f.path));
  if (artifacts.length > 0) lines.push('## Artifacts', '', ...artifacts.map((a) => `- ${a}`), '');
  return lines.join('\n');
}
