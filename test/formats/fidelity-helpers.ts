/** Shared helpers of the fidelity tests (issue 14): hand-written fixtures under test/fixtures/fidelity. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADAPTERS } from '../../src/formats/registry.js';
import { SafeDir } from '../../src/formats/safe-dir.js';
import type { ForeignSession, FormatName, FormatProblem, InspectReport } from '../../src/formats/types.js';

export const FIDELITY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/fidelity');

/** Inspects fixture `format/name` with the adapter of `format`. */
export async function inspectFixture(
  format: FormatName,
  name: string,
  now = new Date('2026-03-02T12:00:00Z'),
): Promise<InspectReport> {
  const a = ADAPTERS.find((x) => x.name === format)!;
  return a.inspect(await SafeDir.open(path.join(FIDELITY, format, name)), now);
}

/** The session `id` of a report (fails loudly when absent). */
export function sessionOf(r: InspectReport, id: string): ForeignSession {
  const s = r.sessions.find((x) => x.id === id);
  if (!s) throw new Error(`session ${id} not in report (has ${r.sessions.map((x) => x.id).join(', ')})`);
  return s;
}

/** The problems of a session with this code. */
export function withCode(ps: FormatProblem[], code: string): FormatProblem[] {
  return ps.filter((p) => p.code === code);
}
