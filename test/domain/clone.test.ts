/** clonePlain: the state copy every change makes must be as deep and faithful as structuredClone. */
import { describe, expect, it } from 'vitest';
import { clonePlain } from '../../src/domain/clone.js';

describe('clonePlain', () => {
  it('copies nested objects and arrays: changing the copy leaves the original alone', () => {
    const a = { x: 1, list: [{ y: 'a', z: [1, 2] }], nested: { deep: { v: null as number | null } }, gone: undefined };
    const b = clonePlain(a);
    expect(b).toEqual(a);
    expect(Object.keys(b)).toEqual(Object.keys(a));
    b.list[0]!.z.push(3);
    b.nested.deep.v = 5;
    expect(a.list[0]!.z).toEqual([1, 2]);
    expect(a.nested.deep.v).toBeNull();
  });

  it('values that are not plain data (a Date, a Map) are copied as structuredClone copies them', () => {
    const d = new Date('2026-01-01T00:00:00Z');
    const c = clonePlain({ d, m: new Map([['k', 1]]) });
    expect(c.d).toBeInstanceOf(Date);
    expect(c.d.getTime()).toBe(d.getTime());
    expect(c.d).not.toBe(d);
    expect(c.m.get('k')).toBe(1);
  });

  it('data nested 2,000 deep is copied', () => {
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 2_000; i++) deep = (deep['n'] = {}) as Record<string, unknown>;
    const c = clonePlain(top);
    expect(c).not.toBe(top);
    expect(typeof c['n']).toBe('object');
  });
});
