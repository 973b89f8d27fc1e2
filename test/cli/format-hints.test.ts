/**
 * A failure recorded in a result rather than thrown (a mirror rewrite that failed, a session
 * that could not be imported) keeps its error's hint when the hint is an action
 * (`BatonError.hintAction`): the record carries it as data, and the CLI words it as the
 * `baton …` text it printed before hints became data. Run in-process through the real
 * `run()`, with test-only adapters added to the registry.
 */
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/main.js';
import { BatonError } from '../../src/domain/errors.js';
import { hint } from '../../src/domain/hints.js';
import { ADAPTERS } from '../../src/formats/registry.js';
import type { FormatAdapter, FormatName } from '../../src/formats/types.js';
import { SessionManager } from '../../src/manager/manager.js';
import { put, tmpDir, toyAdapter, toyDoc } from '../formats/core-helpers.js';

const toy: FormatAdapter = toyAdapter();
/** A layout whose writer refuses while `refuse` is set, with a hint given as an action. */
let refuse = true;
const base = toyAdapter({ name: 'toyfail' });
const failing: FormatAdapter = {
  ...base,
  name: 'toyfail' as FormatName,
  async exportPlan(input, out) {
    if (refuse)
      throw new BatonError('CORRUPT', `Session ${input.state.id} cannot be written.`, {
        hint: hint('repair.run', { session: input.state.id }),
      });
    return base.exportPlan(input, out);
  },
};
beforeAll(() => {
  ADAPTERS.push(toy, failing);
});
afterAll(() => {
  ADAPTERS.splice(ADAPTERS.indexOf(toy), 1);
  ADAPTERS.splice(ADAPTERS.indexOf(failing), 1);
});

const made: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function baton(cwd: string, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run({
    argv,
    env: { NO_COLOR: '1' },
    cwd,
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    isTTY: false,
    now: () => new Date(),
  });
  return { code, stdout, stderr };
}

function ws(): string {
  const d = tmpDir('baton-hints-');
  made.push(d);
  return d;
}

const REPAIR = 'Run `baton repair --session s1`.';

describe('a failed mirror rewrite whose error has a hint action', () => {
  it('is recorded with the action, and the CLI prints the `baton …` hint in the warning and in `baton mirror`', async () => {
    refuse = true;
    const w = ws();
    expect((await baton(w, 'start', 'mirrored', '--id', 's1', '--phases', 'a,b')).code).toBe(0);
    const set = await baton(w, 'mirror', 'toyfail', '--out', 'm');
    expect(set.code).toBe(0);
    expect(set.stderr).toContain('mirror of s1 (toyfail in');
    expect(set.stderr).toContain(`hint: ${REPAIR}`);

    const human = await baton(w, 'mirror');
    expect(human.stdout).toContain('Last rewrite failed at');
    expect(human.stdout).toContain(`  hint: ${REPAIR}`);
    const j = JSON.parse((await baton(w, 'mirror', '--json')).stdout) as {
      error: { code: string; hint: string; hintAction: unknown };
    };
    expect(j.error.code).toBe('CORRUPT');
    expect(j.error.hint).toBe(REPAIR);
    expect(j.error.hintAction).toEqual({ action: 'repair.run', args: { session: 's1' } });

    // The record itself keeps the action as data next to the (absent) text.
    const status = JSON.parse((await baton(w, 'status', '--json')).stdout) as {
      metadata: Record<string, { hint: unknown; hintAction: unknown }>;
    };
    expect(status.metadata['mirrorError']).toMatchObject({
      hint: null,
      hintAction: { action: 'repair.run', args: { session: 's1' } },
    });

    // A rewrite that works clears the record.
    refuse = false;
    expect((await baton(w, 'phase', 'start', 'a')).stderr).toBe('');
    expect(JSON.parse((await baton(w, 'mirror', '--json')).stdout).error).toBeNull();
  });
});

describe('an import of a session that fails with a hint action', () => {
  it('reports IMPORT_FAILED with the action, and the CLI prints the `baton …` hint (human and --json)', async () => {
    const w = ws();
    put(w, 'src/toy/T-1.json', JSON.stringify(toyDoc()));
    const refusal = (): never => {
      throw new BatonError('LOCKED', 'Session T-1 is held by another run.', { hint: hint('lease.wait-or-force') });
    };
    vi.spyOn(SessionManager.prototype, 'createFrom').mockImplementation(async () => refusal());
    const words = 'Wait for that run to end or its lease to expire, or pass --force to take it over.';

    const human = await baton(w, 'import', '--format', 'toy', 'src');
    expect(human.code, human.stderr).toBe(10);
    expect(human.stdout).toContain('IMPORT_FAILED');
    expect(human.stdout).toContain(`hint: ${words}`);

    const j = JSON.parse((await baton(w, 'import', '--format', 'toy', 'src', '--json')).stdout) as {
      sessions: Array<{
        action: string;
        problems: Array<{ code: string; hint: string; hintAction: unknown; details: unknown }>;
      }>;
    };
    const failed = j.sessions[0]!.problems.find((p) => p.code === 'IMPORT_FAILED')!;
    expect(j.sessions[0]!.action).toBe('skipped');
    expect(failed.hint).toBe(words);
    expect(failed.hintAction).toEqual({ action: 'lease.wait-or-force', args: {} });
    expect(failed.details).toEqual({ code: 'LOCKED' });
  });
});
