/**
 * The dashboard's reads (`manager.dashboard`) and its JSON API: sessions sorted interrupted
 * and active first, filtered, searched and paged over many sessions; a session's events paged
 * and filtered by type, family and agent; the kept journal brought forward by what is
 * appended later; bad queries refused with BAD_INPUT (400) and unknown sessions NOT_FOUND (404).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/index.js';
import { startUiServer } from '../../src/ui/index.js';
import type { UiServer } from '../../src/ui/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { request } from './fixture.js';

const SESSIONS = 130;
const TOKEN_EVENTS = 1500;

describe('manager.dashboard and /api', () => {
  let m: SessionManager;
  let s: UiServer;
  const warnings: string[] = [];
  beforeAll(async () => {
    let t = Date.parse('2026-01-01T00:00:00Z');
    m = new SessionManager({
      store: new MemoryStore(),
      now: () => new Date((t += 1000)),
      randomBytes: (n) => new Uint8Array(n).fill(7),
    });
    for (let i = 0; i < SESSIONS; i++) {
      const id = `s${String(i).padStart(3, '0')}`;
      await m.start({
        title: i % 10 === 0 ? `Needle ${i}` : `Session ${i}`,
        id,
        phases: [{ id: 'p', name: 'p' }],
        switch: true,
      });
      if (i === SESSIONS - 1) continue; // the last stays active
      if (i % 7 === 0) await m.lifecycle(id, 'interrupt', 'crash');
      else if (i % 3 === 0) await m.lifecycle(id, 'pause');
    }
    await m.phase('s129', 'p', 'start', { agent: 'ann' });
    for (let i = 0; i < TOKEN_EVENTS; i++)
      await m.tokens('s129', { agent: i % 3 === 0 ? 'ann' : 'ben', phase: 'p', input: 10, output: 1, cached: 0 });
    s = await startUiServer({ manager: m, onWarning: (w) => warnings.push(w) });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('sorts interrupted first, then active, then by last change; counts by status; pages', async () => {
    const all = await m.list();
    const first = await m.dashboard.sessions({ limit: 40 });
    expect(first.total).toBe(SESSIONS);
    expect(first.rows).toHaveLength(40);
    const interrupted = all.filter((r) => r.status === 'interrupted').length;
    expect(first.counts.interrupted).toBe(interrupted);
    expect(Object.values(first.counts).reduce((a, b) => a + b, 0)).toBe(SESSIONS);
    const ranks = first.rows.map((r) => (r.status === 'interrupted' ? 0 : r.status === 'active' ? 1 : 2));
    expect([...ranks].sort()).toEqual(ranks);
    expect(first.rows[interrupted]!.status).toBe('active');
    // Every session exactly once across the pages.
    const seen: string[] = [];
    for (let offset = 0; offset < SESSIONS; offset += 40)
      seen.push(...(await m.dashboard.sessions({ offset, limit: 40 })).rows.map((r) => r.id));
    expect(seen.sort()).toEqual(all.map((r) => r.id).sort());
    const active = first.rows.find((r) => r.id === 's129')!;
    expect(active.agents).toEqual(['ann', 'ben']);
    expect(active.tokens.used).toBe(TOKEN_EVENTS * 11);
  });

  it('filters by status and searches id and title, case-blind', async () => {
    const paused = await m.dashboard.sessions({ status: 'paused', limit: 500 });
    expect(paused.rows.every((r) => r.status === 'paused')).toBe(true);
    expect(paused.total).toBe((await m.list()).filter((r) => r.status === 'paused').length);
    const needle = await m.dashboard.sessions({ search: 'NEEDLE', limit: 500 });
    expect(needle.rows.map((r) => r.id).sort()).toEqual(
      Array.from({ length: 13 }, (_, i) => `s${String(i * 10).padStart(3, '0')}`),
    );
    expect((await m.dashboard.sessions({ search: 's12' })).rows.map((r) => r.id).sort()).toEqual([
      's120',
      's121',
      's122',
      's123',
      's124',
      's125',
      's126',
      's127',
      's128',
      's129',
    ]);
  });

  it("pages a session's events newest first, filtered by type, family and agent", async () => {
    const log = await m.log('s129');
    const page = await m.dashboard.events('s129', { limit: 100 });
    expect(page.total).toBe(log.length);
    expect(page.events.map((e) => e.seq)).toEqual(
      log
        .slice(-100)
        .map((e) => e.seq)
        .reverse(),
    );
    const second = await m.dashboard.events('s129', { offset: 100, limit: 100, order: 'asc' });
    expect(second.events.map((e) => e.seq)).toEqual(log.slice(100, 200).map((e) => e.seq));
    const ann = await m.dashboard.events('s129', { type: 'tokens.recorded', agent: 'ann', limit: 500 });
    expect(ann.total).toBe(TOKEN_EVENTS / 3);
    expect(ann.events.every((e) => e.type === 'tokens.recorded' && (e.data as { agent: string }).agent === 'ann')).toBe(
      true,
    );
    const family = await m.dashboard.events('s129', { type: 'session.', limit: 500 });
    expect(family.events.map((e) => e.type).every((t) => t.startsWith('session.'))).toBe(true);
    expect(family.total).toBe(log.filter((e) => e.type.startsWith('session.')).length);
  });

  it("keeps a session's journal and brings it forward with what is appended later", async () => {
    const before = await m.dashboard.session('s129', { maxPoints: 50 });
    expect(before.tokens.time.length).toBe(50);
    expect(before.tokens.records).toBe(TOKEN_EVENTS);
    expect(before.tokens.total.at(-1)).toBe(TOKEN_EVENTS * 11);
    expect(before.attempts).toEqual([
      expect.objectContaining({ phaseId: 'p', attempt: 1, outcome: 'running', agent: 'ann' }),
    ]);
    await m.tokens('s129', { agent: 'cy', phase: 'p', input: 5, output: 5, cached: 0 });
    await m.phase('s129', 'p', 'fail', { reason: 'broke' });
    await m.phase('s129', 'p', 'retry', { agent: 'cy' });
    const after = await m.dashboard.session('s129');
    expect(after.tokens.total.at(-1)).toBe(TOKEN_EVENTS * 11 + 10);
    expect(after.tokens.byAgent['cy']!.at(-1)).toBe(10);
    expect(after.attempts.map((a) => [a.attempt, a.outcome, a.reason])).toEqual([
      [1, 'failed', 'broke'],
      [2, 'running', null],
    ]);
    expect(after.facets.types['tokens.recorded']).toBe(TOKEN_EVENTS + 1);
    expect(after.view.revision).toBe((await m.log('s129')).length);
  });

  it('lists archived sessions only when asked (archived=true), counts them, and refuses a bad flag', async () => {
    await m.lifecycle('s001', 'abandon');
    await m.archive('s001');
    const live = JSON.parse((await request(s, '/api/sessions?limit=500', { token: true })).body) as {
      total: number;
      archived: number;
      rows: Array<{ id: string; archived: boolean }>;
    };
    expect(live.rows.map((r) => r.id)).not.toContain('s001');
    expect(live.archived).toBe(1);
    const all = JSON.parse(
      (await request(s, '/api/sessions?limit=500&archived=true', { token: true })).body,
    ) as typeof live;
    expect(all.total).toBe(live.total + 1);
    expect(all.rows.find((r) => r.id === 's001')).toMatchObject({ archived: true });
    const bad = await request(s, '/api/sessions?archived=maybe', { token: true });
    expect(bad.status).toBe(400);
  });

  it('answers bad queries with 400 BAD_INPUT, unknown sessions and routes with 404; the live stream starts with whether the store has a change feed', async () => {
    for (const q of [
      '/api/sessions?limit=0',
      '/api/sessions?limit=501',
      '/api/sessions?offset=-1',
      '/api/sessions?status=sleeping',
      '/api/sessions/s129/events?order=sideways',
      '/api/sessions/s129/events?limit=x',
      '/api/sessions/..%2Fetc',
    ]) {
      const r = await request(s, q, { token: true });
      expect(r.status, q).toBe(400);
      expect(JSON.parse(r.body).error.code, q).toBe('BAD_INPUT');
    }
    for (const q of ['/api/sessions/nope', '/api/sessions/nope/events', '/api/nothing', '/api/sessions/s129/nothing']) {
      const r = await request(s, q, { token: true });
      expect(r.status, q).toBe(404);
      expect(JSON.parse(r.body).error.code, q).toBe('NOT_FOUND');
    }
    const ok = JSON.parse((await request(s, '/api/sessions?q=needle&limit=5', { token: true })).body);
    expect(ok.total).toBe(13);
    expect(ok.rows).toHaveLength(5);
    expect(warnings).toEqual([]);
    expect((await request(s, '/api/live', { token: true })).body).toContain('event: ready\ndata: {"live":true}');
  });
});
