import { describe, expect, it } from 'vitest';
import { cursorsOf } from '../../store/capabilities.js';
import type { CursorTable } from '../../store/types.js';
import { expectCode } from '../fixtures.js';
import type { StoreSuite } from '../suite.js';

/** Conformance group: the optional `cursors` capability (readers' named positions). A store without it skips these, saying so. */
export function cursorTests(suite: StoreSuite): void {
  describe('cursors (stores with the cursors capability)', () => {
    const table = (ctx: { skip: (note?: string) => void }): CursorTable => {
      const t = cursorsOf(suite.store);
      if (!t) ctx.skip(`${suite.name} keeps no cursors`);
      return t!;
    };

    it('keeps a value per name, replaced only from the value it holds', async (ctx) => {
      const c = table(ctx);
      expect(await c.get('otel.a.s1')).toBeNull();
      await c.put('otel.a.s1', '{"seq":3}', null);
      expect(await c.get('otel.a.s1')).toBe('{"seq":3}');
      await expectCode(c.put('otel.a.s1', '{"seq":9}', null), 'CONFLICT');
      await expectCode(c.put('otel.a.s1', '{"seq":9}', '{"seq":1}'), 'CONFLICT');
      expect(await c.get('otel.a.s1')).toBe('{"seq":3}');
      await c.put('otel.a.s1', '{"seq":5}', '{"seq":3}');
      expect(await c.get('otel.a.s1')).toBe('{"seq":5}');
    });

    it('lists by prefix, in name order', async (ctx) => {
      const c = table(ctx);
      await c.put('otel.b.s2', '2', null);
      await c.put('otel.b.s1', '1', null);
      await c.put('otel.bx.s1', 'x', null);
      await c.put('other', 'o', null);
      expect(await c.list('otel.b.')).toEqual([
        { name: 'otel.b.s1', value: '1' },
        { name: 'otel.b.s2', value: '2' },
      ]);
      expect(await c.list('nothing')).toEqual([]);
    });

    it('refuses names that are not plain and values too large, writing nothing', async (ctx) => {
      const c = table(ctx);
      for (const bad of ['', '../x', 'a/b', '.hidden', 'a..b', 'x'.repeat(201)])
        await expectCode(c.put(bad, 'v', null), 'BAD_INPUT');
      await expectCode(c.put('big', 'v'.repeat(64 * 1024 + 1), null), 'BAD_INPUT');
      expect(await c.list('')).toEqual([]);
    });

    it('of two handles moving one cursor from the same value, exactly one wins (multiProcess stores)', async (ctx) => {
      const c = table(ctx);
      if (!suite.store.capabilities.multiProcess) ctx.skip('single-process store');
      const other = cursorsOf(await suite.second())!;
      await c.put('race', '0', null);
      const r = await Promise.allSettled([c.put('race', 'a', '0'), other.put('race', 'b', '0')]);
      expect(r.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
      const won = r[0]!.status === 'fulfilled' ? 'a' : 'b';
      expect(await other.get('race')).toBe(won);
      expect(await c.get('race')).toBe(won);
    });
  });
}
