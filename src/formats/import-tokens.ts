/**
 * Token use at import: the foreign breakdown and a journal's `tokens.recorded` events as
 * (agent, phase) cells, so import and re-import compare them at the same grain.
 */
import type { EventDataMap } from '../domain/events.js';
import { counts, nonEmpty, note } from './import-values.js';
import type { ForeignSession, FormatProblem, TokenCountsLike } from './types.js';

/** Agent under which tokens the foreign per-agent breakdown does not account for are recorded. */
export const UNATTRIBUTED = '(unattributed)';

const CELL_SEP = '\u0000';
function cellKey(agent: string, phaseId: string | null): string {
  return `${agent}${CELL_SEP}${phaseId ?? ''}`;
}
/** The agent and phase of a token cell key (see journalTokenCells). */
export function splitCell(k: string): [string, string | null] {
  const i = k.indexOf(CELL_SEP);
  const p = k.slice(i + 1);
  return [k.slice(0, i), p === '' ? null : p];
}

/**
 * Token use of the foreign session as (agent, phase) cells: the per-agent breakdown when there
 * is one, else the per-unit one under {@link UNATTRIBUTED}; what the totals hold beyond it
 * goes to {@link UNATTRIBUTED} without a phase.
 */
export function foreignTokenCells(
  s: ForeignSession,
  phaseIds: Set<string>,
  problems: FormatProblem[],
): Map<string, TokenCountsLike> {
  const cells = new Map<string, TokenCountsLike>();
  const t = s.tokens;
  if (!t) return cells;
  const add = (k: string, c: TokenCountsLike): void => {
    const cur = cells.get(k) ?? { input: 0, output: 0, cached: 0 };
    cells.set(k, { input: cur.input + c.input, output: cur.output + c.output, cached: cur.cached + c.cached });
  };
  if (t.byAgent) {
    for (const [agent, c] of Object.entries(t.byAgent))
      add(cellKey(nonEmpty(agent, UNATTRIBUTED, 200), null), counts(c));
  } else if (t.byUnit) {
    for (const [unit, c] of Object.entries(t.byUnit))
      add(cellKey(UNATTRIBUTED, phaseIds.has(unit) ? unit : null), counts(c));
  }
  const sum = { input: 0, output: 0, cached: 0 };
  for (const c of cells.values()) {
    sum.input += c.input;
    sum.output += c.output;
    sum.cached += c.cached;
  }
  const total = counts(t);
  const rest = {
    input: Math.max(0, total.input - sum.input),
    output: Math.max(0, total.output - sum.output),
    cached: Math.max(0, total.cached - sum.cached),
  };
  if (rest.input || rest.output || rest.cached || cells.size === 0) add(cellKey(UNATTRIBUTED, null), rest);
  if (total.input < sum.input || total.output < sum.output || total.cached < sum.cached) {
    problems.push(
      note(
        'info',
        'TOKENS_DISAGREE',
        s,
        `The token totals are below the sum of the per-agent breakdown; baton's totals are the breakdown's sum (${sum.input} in / ${sum.output} out / ${sum.cached} cached).`,
        { totals: total, sum },
      ),
    );
  }
  // An all-zero unattributed cell only matters when there is nothing else (it keeps "tokens: 0" visible).
  const un = cells.get(cellKey(UNATTRIBUTED, null));
  if (un && !un.input && !un.output && !un.cached && cells.size > 1) cells.delete(cellKey(UNATTRIBUTED, null));
  return cells;
}

/** Token cells (agent, phase) → counts of a journal's `tokens.recorded` events. */
export function journalTokenCells(
  events: ReadonlyArray<{ type: string; data: unknown }>,
): Map<string, TokenCountsLike> {
  const cells = new Map<string, TokenCountsLike>();
  for (const e of events) {
    if (e.type !== 'tokens.recorded') continue;
    const d = e.data as EventDataMap['tokens.recorded'];
    const k = cellKey(d.agent, d.phaseId);
    const cur = cells.get(k) ?? { input: 0, output: 0, cached: 0 };
    cells.set(k, { input: cur.input + d.input, output: cur.output + d.output, cached: cur.cached + d.cached });
  }
  return cells;
}
