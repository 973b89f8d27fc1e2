import { z } from 'zod';
import { validatePhases } from './decide.js';
import { BatonError } from './errors.js';
import { hint } from './hints.js';
import type { PhaseSpec } from './events.js';
import { phaseIdFor, validateId } from './ids.js';
import type { BudgetSetInput } from './spend/budget-policy.js';
import { PLAN_BUDGET_HINT, planBudgets } from './spend/plan-budget.js';

const phaseSchema = z
  .object({
    id: z.union([z.string(), z.number().int()]).optional(),
    name: z.string().min(1).max(500),
    agents: z.array(z.string().min(1).max(200)).optional(),
    agent: z.string().min(1).max(200).optional(),
    blockedBy: z.array(z.union([z.string(), z.number().int()])).optional(),
    blocked_by: z.array(z.union([z.string(), z.number().int()])).optional(),
    parallel: z.union([z.boolean(), z.string()]).optional(),
    parallelGroup: z.string().max(200).nullable().optional(),
    maxRetries: z.number().int().min(0).max(100).optional(),
    budget: z.unknown().optional(),
  })
  .passthrough();

const planSchema = z
  .object({
    title: z.string().min(1).max(1000).optional(),
    // Checked by plan-budget.ts, whose errors name the field and the values allowed.
    budget: z.unknown().optional(),
    // Elements are checked one by one below, so that an error names the field at fault
    // instead of zod's generic "Invalid input" for a union.
    phases: z.array(z.unknown()).min(1).max(1000),
  })
  .passthrough();

/** A plan: the phases of a session, and optionally its title and budgets (plan-budget.ts). */
export interface Plan {
  title?: string;
  /** The session's token budget. */
  budget?: number;
  /** The rest of the budgets: the session's cost and policy, each agent's and phase's; none when empty. */
  budgets?: BudgetSetInput[];
  phases: PhaseSpec[];
}

const KNOWN = new Set([
  'id',
  'name',
  'agents',
  'agent',
  'blockedBy',
  'blocked_by',
  'parallel',
  'parallelGroup',
  'maxRetries',
  'budget',
]);

/**
 * Turns a parsed plan document (JSON or YAML) into validated phase specs. Accepts Maestro's
 * snake_case `blocked_by` and `parallel`, numeric ids, and plain strings as phase names.
 * Unknown phase fields are kept as metadata. `source` names the file in messages.
 */
export function parsePlan(doc: unknown, source: string): Plan {
  const parsed = planSchema.safeParse(Array.isArray(doc) ? { phases: doc } : doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    fail(source, issue.path, issue.message);
  }
  const phases = withSource(source, () =>
    parsed.data.phases.map((raw, i): PhaseSpec => {
      if (typeof raw === 'string') {
        if (raw.trim() === '' || raw.length > 500)
          fail(source, ['phases', i], 'a phase name must be 1 to 500 characters');
        return { id: phaseIdFor(raw, i), name: raw };
      }
      const one = phaseSchema.safeParse(raw);
      if (!one.success) {
        const issue = one.error.issues[0]!;
        fail(source, ['phases', i, ...issue.path], issue.message);
      }
      const p = one.data;
      const metadata: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(p)) if (!KNOWN.has(k)) metadata[k] = v;
      const id = p.id === undefined ? phaseIdFor(p.name, i) : validateId(String(p.id), 'phase id');
      const agents = p.agents ?? (p.agent ? [p.agent] : []);
      const group =
        p.parallelGroup ?? (typeof p.parallel === 'string' ? p.parallel : p.parallel === true ? 'parallel' : null);
      return {
        id,
        name: p.name,
        agents,
        blockedBy: (p.blockedBy ?? p.blocked_by ?? []).map(String),
        parallelGroup: group,
        ...(p.maxRetries !== undefined ? { maxRetries: p.maxRetries } : {}),
        ...(Object.keys(metadata).length ? { metadata } : {}),
      };
    }),
  );
  const budgets = planBudgets(
    parsed.data.budget,
    parsed.data.phases.map((raw, i) => ({ id: phases[i]!.id, budget: budgetField(raw), index: i })),
    (at, message) => fail(source, at, message, PLAN_BUDGET_HINT),
  );
  return {
    ...(parsed.data.title ? { title: parsed.data.title } : {}),
    ...(budgets.tokens !== undefined ? { budget: budgets.tokens } : {}),
    ...(budgets.changes.length ? { budgets: budgets.changes } : {}),
    phases: withSource(source, () => validatePhases(phases)),
  };
}

/** A phase entry's `budget` field (a phase given by its name alone has none). */
function budgetField(raw: unknown): unknown {
  return raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>)['budget'] : undefined;
}

function fail(source: string, at: Array<string | number>, message: string, way?: string): never {
  throw new BatonError('BAD_INPUT', `Plan ${source} is not valid: ${at.join('.') || '(top level)'}: ${message}.`, {
    hint:
      way ?? 'A plan is {"phases": [{"id": "design", "name": "Design", "blockedBy": []}, …]} or a list of phase names.',
    details: { source, path: at },
  });
}

/** Phases from a comma-separated list of names (`--phases design,build,test`). */
export function phasesFromList(list: string): PhaseSpec[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!names.length)
    throw new BatonError('BAD_INPUT', 'The phase list is empty.', { hint: hint('session.phases-list') });
  return validatePhases(names.map((name, i) => ({ id: phaseIdFor(name, i), name })));
}

/** Prefixes a dependency error with the plan file it came from. */
function withSource<T>(source: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof BatonError && !e.message.startsWith(`Plan ${source}`))
      throw new BatonError(e.code, `Plan ${source}: ${e.message}`, { hint: e.way, details: { ...e.details, source } });
    throw e;
  }
}
