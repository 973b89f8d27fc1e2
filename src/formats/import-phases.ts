/**
 * The phases of an imported session: one per foreign unit, ids made unique, dependencies
 * kept only when they point at another unit and form no cycle.
 */
import type { PhaseSpec } from '../domain/events.js';
import { nonEmpty, note } from './import-values.js';
import type { ForeignSession, FormatProblem } from './types.js';

/** Phase metadata key of the files a unit read (baton records only created/modified/deleted). */
export const FILES_READ_KEY = 'filesRead';

/** Phases of the session: one per unit, ids made unique, blockers pointing nowhere or in a cycle dropped. */
export function phaseSpecs(s: ForeignSession, problems: FormatProblem[]): { specs: PhaseSpec[]; ids: string[] } {
  const seen = new Set<string>();
  const ids = s.units.map((u, i) => {
    let id = typeof u.id === 'string' && u.id !== '' ? u.id : `unit-${i + 1}`;
    if (seen.has(id)) {
      let n = 2;
      while (seen.has(`${id}-${n}`)) n++;
      problems.push(
        note(
          'warning',
          'DUPLICATE_UNIT',
          s,
          `Unit id ${JSON.stringify(id)} appears more than once; the later one was imported as ${id}-${n}.`,
          { unitId: id, importedAs: `${id}-${n}` },
        ),
      );
      id = `${id}-${n}`;
    }
    seen.add(id);
    return id;
  });
  const specs: PhaseSpec[] = s.units.map((u, i) => {
    const blockedBy = (u.blockedBy ?? []).filter((b) => {
      if (seen.has(b) && b !== ids[i]) return true;
      problems.push(
        note(
          'warning',
          'BAD_VALUE',
          s,
          `Unit ${ids[i]} is blocked by ${JSON.stringify(b)}, which is not another unit of the session; the dependency was dropped.`,
          { unitId: ids[i], blockedBy: b },
        ),
      );
      return false;
    });
    const read = u.files.filter((f) => f.action === 'read').map((f) => f.path);
    const metadata = { ...u.metadata, ...(read.length ? { [FILES_READ_KEY]: read } : {}) };
    return {
      id: ids[i]!,
      name: nonEmpty(u.name, ids[i]!, 1000),
      agents: [...new Set(u.agents ?? [])],
      blockedBy,
      metadata,
    };
  });
  if (hasCycle(specs)) {
    problems.push(
      note(
        'warning',
        'BAD_VALUE',
        s,
        "The units' blocked_by dependencies form a cycle; all dependencies were dropped.",
      ),
    );
    for (const p of specs) p.blockedBy = [];
  }
  return { specs, ids };
}

function hasCycle(specs: PhaseSpec[]): boolean {
  const by = new Map(specs.map((p) => [p.id, p]));
  const mark = new Map<string, 1 | 2>();
  const visit = (id: string): boolean => {
    if (mark.get(id) === 2) return false;
    if (mark.get(id) === 1) return true;
    mark.set(id, 1);
    for (const b of by.get(id)?.blockedBy ?? []) if (visit(b)) return true;
    mark.set(id, 2);
    return false;
  };
  return specs.some((p) => visit(p.id));
}
