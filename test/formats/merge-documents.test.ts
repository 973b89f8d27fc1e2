/**
 * The three-way merge of a toolkit's documents live sync uses (src/formats/merge-documents.ts):
 * base = the writer's copy, ours = baton's, theirs = the model's write.
 */
import { describe, expect, it } from 'vitest';
import { closestBase, mergeDocuments, sameValue, withField } from '../../src/formats/merge-documents.js';

const F = 'state/active-session.md';
/** A Maestro-like document: frontmatter with phases matched by id. */
const doc = (phases: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({
  [F]: { frontmatterFormat: 'yaml', frontmatter: { session_id: 's', phases, ...extra }, body: '# log\n' },
});
const ph = (id: number, more: Record<string, unknown> = {}) => ({ id, status: 'pending', ...more });

describe('mergeDocuments', () => {
  it('takes a field only the write changed, keeps one only baton changed, and names it', () => {
    const base = doc([ph(1), ph(2)], { execution_mode: 'sequential' });
    const ours = doc([ph(1, { downstream_context: { warnings: ['x'] } }), ph(2)], { execution_mode: 'sequential' });
    const theirs = doc([ph(1), ph(2)], { execution_mode: 'parallel' });
    const r = mergeDocuments(base, ours, theirs);
    expect(r.merged).toEqual(
      doc([ph(1, { downstream_context: { warnings: ['x'] } }), ph(2)], { execution_mode: 'parallel' }),
    );
    expect(r.kept.map((k) => [k.field, k.why])).toEqual([['frontmatter.phases[id=1].downstream_context', 'newer']]);
    expect(r.kept[0]!.ours).toEqual({ warnings: ['x'] });
    expect(r.kept[0]!.theirs).toBeUndefined();
  });

  it('a field both changed differently is a conflict: ours kept, both values named', () => {
    const base = doc([ph(1, { downstream_context: { warnings: [] } })]);
    const ours = doc([ph(1, { downstream_context: { warnings: ['ours'] } })]);
    const theirs = doc([ph(1, { downstream_context: { warnings: ['theirs'] } })]);
    const r = mergeDocuments(base, ours, theirs);
    expect(r.merged).toEqual(ours);
    expect(r.kept).toEqual([
      expect.objectContaining({
        doc: F,
        field: 'frontmatter.phases[id=1].downstream_context.warnings',
        why: 'conflict',
        base: [],
        ours: ['ours'],
        theirs: ['theirs'],
      }),
    ]);
  });

  it('the same change on both sides, or no change, is no conflict; a fresh write is taken whole', () => {
    const base = doc([ph(1)]);
    const both = doc([ph(1, { status: 'completed' })]);
    expect(mergeDocuments(base, both, both)).toEqual({ merged: both, kept: [] });
    // Written from baton's latest copy (base = ours): the write is taken as it is.
    const theirs = doc([ph(1, { status: 'failed', extra: 1 })], { new_key: true });
    expect(mergeDocuments(both, both, theirs)).toEqual({ merged: theirs, kept: [] });
  });

  it('list items with ids merge by id: items either side added are kept, a removal only the write made is taken', () => {
    const base = doc([ph(1), ph(2)]);
    const ours = doc([ph(1), ph(2), ph(3)]);
    const theirs = doc([ph(1), ph(4)]);
    const r = mergeDocuments(base, ours, theirs);
    expect((r.merged[F] as { frontmatter: { phases: unknown[] } }).frontmatter.phases).toEqual([ph(1), ph(3), ph(4)]);
    // Item 3 is baton's since the write's copy: kept, and named as newer than the write.
    expect(r.kept.map((k) => [k.field, k.why])).toEqual([['frontmatter.phases[id=3]', 'newer']]);
    // A removal over baton's change of the same item: a conflict, the item kept.
    const changed = doc([ph(1), ph(2, { status: 'completed' })]);
    const r2 = mergeDocuments(base, changed, doc([ph(1)]));
    expect((r2.merged[F] as { frontmatter: { phases: unknown[] } }).frontmatter.phases).toEqual([
      ph(1),
      ph(2, { status: 'completed' }),
    ]);
    expect(r2.kept.map((k) => [k.field, k.why])).toEqual([['frontmatter.phases[id=2]', 'conflict']]);
  });

  it('lists without ids and scalars are one field; CCW-like nested mappings merge deep', () => {
    const C = '.workflow/WFS-x/workflow-session.json';
    const base = { [C]: { checkpoints: { review: { status: 'pending', quality_checks: {} } }, context_chain: ['a'] } };
    const ours = {
      [C]: {
        checkpoints: { review: { status: 'pending', quality_checks: { lint: 'passed' } } },
        context_chain: ['a', 'b'],
      },
    };
    const theirs = {
      [C]: { checkpoints: { review: { status: 'in_progress', quality_checks: {} } }, context_chain: ['a', 'c'] },
    };
    const r = mergeDocuments(base, ours, theirs);
    expect(r.merged).toEqual({
      [C]: {
        checkpoints: { review: { status: 'in_progress', quality_checks: { lint: 'passed' } } },
        context_chain: ['a', 'b'],
      },
    });
    expect(r.kept.map((k) => [k.field, k.why])).toEqual([
      ['context_chain', 'conflict'],
      ['checkpoints.review.quality_checks.lint', 'newer'],
    ]);
  });

  it('a document only one side has is taken as it is', () => {
    const r = mergeDocuments({}, { a: { x: 1 } }, { b: { y: 2 } });
    expect(r).toEqual({ merged: { a: { x: 1 }, b: { y: 2 } }, kept: [] });
  });
});

describe('closestBase and withField', () => {
  it('picks the version the write differs least from, the newest of equals', () => {
    const v0 = doc([ph(1), ph(2)]);
    const v1 = doc([ph(1, { status: 'completed' }), ph(2, { status: 'in_progress' })]);
    const v2 = doc([ph(1, { status: 'completed' }), ph(2, { status: 'in_progress', downstream_context: {} })]);
    // Written from the start copy with one change of its own.
    expect(closestBase([v0, v1, v2], doc([ph(1), ph(2)], { token_usage: 1 }))).toBe(0);
    expect(closestBase([v0, v1, v2], doc([ph(1, { status: 'completed' }), ph(2, { status: 'completed' })]))).toBe(1);
    expect(closestBase([v0, v1, v1], v1)).toBe(2);
    expect(closestBase([], v1)).toBe(-1);
  });

  it('sets a field by its steps (an id-matched item included), leaving the input untouched', () => {
    const d = doc([ph(1), ph(2)]);
    const r = mergeDocuments(doc([ph(1), ph(2)]), doc([ph(1), ph(2, { x: 1 })]), d);
    const f = r.kept[0]!;
    expect(f.field).toBe('frontmatter.phases[id=2].x');
    const back = withField(r.merged, f, f.theirs);
    expect(sameValue(back, d)).toBe(true);
    expect(withField(r.merged, f, 5)[F]).toMatchObject({ frontmatter: { phases: [ph(1), ph(2, { x: 5 })] } });
    expect(r.merged[F]).toMatchObject({ frontmatter: { phases: [ph(1), ph(2, { x: 1 })] } });
  });
});
