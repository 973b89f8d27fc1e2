/**
 * The fixed parts of bmit's `00-session-state.json` (schema 3.0): the eight steps in order,
 * their names, and the sub-step checkpoint table of each step (session-resume skill,
 * references/context-budgets.md). Pure data and small lookups, no I/O.
 */
import type { UnitStatus } from '../types.js';

/** Step keys in workflow order ("3_5" = Governance, between Design and IaC Plan). */
export const STEP_ORDER = ['1', '2', '3', '3_5', '4', '5', '6', '7'] as const;

/** Default step names, as the template writes them. */
export const STEP_NAMES: Record<string, string> = {
  '1': 'Requirements',
  '2': 'Architecture',
  '3': 'Design',
  '3_5': 'Governance',
  '4': 'IaC Plan',
  '5': 'IaC Code',
  '6': 'Deploy',
  '7': 'As-Built',
};

/**
 * Sub-step checkpoints per step, in order. Step 3_5 has no table in the skill, so any
 * sub-step name is accepted there. Step 4 is also seen spelled `phase_3_5_strategy`, step 7
 * later gained `phase_1.5_compacted`: both are accepted as known spellings.
 */
export const SUB_STEPS: Record<string, readonly string[]> = {
  '1': ['phase_1_discovery', 'phase_2_workload', 'phase_3_nfr', 'phase_4_technical', 'phase_5_artifact'],
  '2': ['phase_1_prereqs', 'phase_2_waf', 'phase_3_cost', 'phase_4_challenger', 'phase_5_artifact'],
  '3': ['phase_1_prereqs', 'phase_2_diagram', 'phase_3_adr', 'phase_4_artifact'],
  '4': [
    'phase_1_governance',
    'phase_2_avm',
    'phase_3_plan',
    'phase_3.5_strategy',
    'phase_3_5_strategy',
    'phase_4_diagrams',
    'phase_5_challenger',
    'phase_6_artifact',
  ],
  '5': [
    'phase_1_preflight',
    'phase_1.5_governance',
    'phase_2_scaffold',
    'phase_3_modules',
    'phase_4_lint',
    'phase_5_challenger',
    'phase_6_artifact',
  ],
  '6': ['phase_1_auth', 'phase_2_preview', 'phase_3_deploy', 'phase_4_verify', 'phase_5_artifact'],
  '7': [
    'phase_1_prereqs',
    'phase_1.5_compacted',
    'phase_2_inventory',
    'phase_3_docs',
    'phase_4_cost',
    'phase_5_diagram',
    'phase_6_index',
  ],
};

/** Statuses bmit writes. */
export const BMIT_STATUSES = ['pending', 'in_progress', 'complete', 'skipped'] as const;

/** Schema versions bmit has had; only the last is current. */
export const SCHEMA_VERSIONS = ['1.0', '2.0', '3.0'] as const;
export const CURRENT_SCHEMA = '3.0';

/**
 * Normalizes a raw step status. `known` is false for values outside bmit's enum (they are
 * still mapped when the meaning is clear: completed, failed, blocked).
 */
export function normalizeStatus(raw: string | null): { status: UnitStatus; known: boolean } {
  switch (raw) {
    case 'pending':
      return { status: 'pending', known: true };
    case 'in_progress':
      return { status: 'in_progress', known: true };
    case 'complete':
      return { status: 'completed', known: true };
    case 'skipped':
      return { status: 'skipped', known: true };
    case 'completed':
    case 'done':
      return { status: 'completed', known: false };
    case 'failed':
      return { status: 'failed', known: false };
    case 'blocked':
      return { status: 'blocked', known: false };
    case 'in-progress':
    case 'running':
      return { status: 'in_progress', known: false };
    default:
      return { status: 'pending', known: false };
  }
}

/** bmit's status for a baton phase status (bmit has no failed/blocked: see write.ts). */
export function denormalizeStatus(status: string): string {
  switch (status) {
    case 'completed':
      return 'complete';
    case 'in_progress':
    case 'failed':
      return 'in_progress';
    case 'skipped':
      return 'skipped';
    default:
      return 'pending';
  }
}

/** "3.5", 3.5, "3_5" → "3_5"; 4 → "4"; anything else → its string form, or null. */
export function stepKey(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v).replace('.', '_');
  if (typeof v === 'string' && v.trim() !== '') return v.trim().replace('.', '_');
  return null;
}

/** Position of a step key in the workflow (unknown keys sort after the known ones). */
export function stepRank(key: string): number {
  const i = (STEP_ORDER as readonly string[]).indexOf(key);
  return i === -1 ? STEP_ORDER.length : i;
}

/** Label used in messages: `step 3_5 (Governance)`. */
export function stepLabel(key: string, name?: string | null): string {
  const n = name || STEP_NAMES[key];
  return n ? `step ${key} (${n})` : `step ${key}`;
}
