/**
 * Bad input is BAD_INPUT naming where it is: a plan's fields and dependencies (with the plan
 * file), token counts that are not finite integers, ids that are not text.
 */
import { describe, expect, it } from 'vitest';
import { tokenCount, positive } from '../../src/domain/decide.js';
import { BatonError } from '../../src/domain/errors.js';
import { validateId } from '../../src/domain/ids.js';
import { parsePlan } from '../../src/domain/plan.js';

function codeOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof BatonError) return { code: e.code, message: e.message };
    return { code: `not a BatonError: ${String(e)}`, message: '' };
  }
  return { code: 'no error', message: '' };
}

describe('bad input named', () => {
  it.each([
    [{ phases: [{ id: 'a' }] }, 'phases.0.name'],
    [{ phases: [{ name: 5 }] }, 'phases.0.name'],
    [{ phases: [{ name: 'A', id: true }] }, 'phases.0.id'],
    [{ phases: [{ name: 'A', agents: 'bob' }] }, 'phases.0.agents'],
  ])('a bad phase field is named in the message (%j)', (doc, where) => {
    const r = codeOf(() => parsePlan(doc, 'p.json'));
    expect(r.code).toBe('BAD_INPUT');
    expect(r.message).toContain(`p.json`);
    expect(r.message).toContain(where);
  });

  it('dependency errors in a plan name the plan file', () => {
    const r = codeOf(() => parsePlan({ phases: [{ id: 'a', name: 'A', blockedBy: ['zz'] }] }, 'plan.yaml'));
    expect(r.code).toBe('BAD_INPUT');
    expect(r.message).toMatch(/^Plan plan\.yaml: .*zz/);
  });

  it('bigint, NaN and Infinity token counts are BAD_INPUT with the value shown', () => {
    expect(codeOf(() => tokenCount(12n, 'input'))).toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('got 12'),
    });
    expect(codeOf(() => tokenCount(Number.NaN, 'input')).message).toContain('got NaN');
    expect(codeOf(() => positive(Number.POSITIVE_INFINITY, 'budget')).message).toContain('got Infinity');
  });

  it('a non-string id is refused as not text, not as empty', () => {
    const r = codeOf(() => validateId(42));
    expect(r.code).toBe('BAD_INPUT');
    expect(r.message).toContain('must be text');
  });
});
