/**
 * The dashboard is safe by default: every request needs the token (401 without it), a foreign
 * `Host` (DNS rebinding) or `Origin` (another site in the browser) gets 403, only GET and HEAD
 * exist (405), every response carries a strict Content Security Policy, the first load trades
 * the token for an HttpOnly, SameSite=Strict cookie, and no request of any kind writes to the
 * store, on the file store and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotTree } from '../support/tree.js';
import { request, scriptedWorkflow, serve, storeCases } from './fixture.js';
import type { StoreWorkspace } from './fixture.js';

type Served = Awaited<ReturnType<typeof serve>>;

/** Everything a store holds that a request could change: every row, every session's events and checkpoints. */
async function storeContent(s: Served): Promise<string> {
  const m = s.manager;
  const rows = await m.listJson({ all: true });
  const sessions = await Promise.all(
    (await m.list({ all: true })).map(async (r) => ({
      id: r.id,
      events: await m.log(r.id),
      checkpoints: await m.checkpoints.list(r.id),
    })),
  );
  return JSON.stringify({ rows, sessions, active: await m.store.getActive() });
}

const ROUTES = [
  '/',
  '/assets/app.js',
  '/assets/app.css',
  '/api',
  '/api/sessions',
  '/api/sessions/api',
  '/api/sessions/api/events',
  '/api/sessions/api/resume',
  '/api/live',
];

describe.each(storeCases())('dashboard security on the $name store', (store) => {
  let w: StoreWorkspace;
  let s: Served;
  beforeAll(async () => {
    w = await scriptedWorkflow(store);
    s = await serve(w);
  });
  afterAll(async () => {
    await s?.close();
    await w?.drop();
  });

  it('refuses every route without the token (401) or with a wrong one, and serves it with the token', async () => {
    for (const path of ROUTES) {
      const none = await request(s, path);
      expect(none.status, path).toBe(401);
      expect(JSON.parse(none.body).error.code).toBe('UNAUTHORIZED');
      const wrong = await request(s, path, {
        headers: { Authorization: `Bearer ${s.token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}` },
      });
      expect(wrong.status, path).toBe(401);
      const right = await request(s, path, { token: true });
      expect(right.status, `${path}: ${right.body.slice(0, 200)}`).toBe(200);
    }
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin or cross-site fetch (403), token or not', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${s.port}`,
      `127.0.0.1:${s.port + 1}`,
      `localhost.evil.example:${s.port}`,
    ]) {
      const r = await request(s, '/api/sessions', { token: true, headers: { Host: host } });
      expect(r.status, host).toBe(403);
    }
    for (const origin of [
      'http://evil.example',
      `http://evil.example:${s.port}`,
      `https://127.0.0.1:${s.port}`,
      'null',
    ]) {
      const r = await request(s, '/api/sessions', { token: true, headers: { Origin: origin } });
      expect(r.status, origin).toBe(403);
    }
    expect(
      (await request(s, '/api/sessions', { token: true, headers: { 'Sec-Fetch-Site': 'cross-site' } })).status,
    ).toBe(403);
    // The dashboard's own origin, under each loopback name, is fine.
    for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`]) {
      const r = await request(s, '/api/sessions', {
        token: true,
        headers: { Host: host, Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-origin' },
      });
      expect(r.status, host).toBe(200);
    }
  });

  it('is read-only: every other method gets 405 with Allow: GET, HEAD; HEAD answers without a body', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      for (const path of ['/api/sessions', '/api/sessions/api', '/']) {
        const r = await request(s, path, { method, token: true });
        expect(r.status, `${method} ${path}`).toBe(405);
        expect(r.headers['allow']).toBe('GET, HEAD');
      }
    }
    const head = await request(s, '/api/sessions', { method: 'HEAD', token: true });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('sends a strict CSP on every response, and the page has no inline script or style', async () => {
    for (const path of [...ROUTES, '/nothing-here']) {
      for (const token of [true, false]) {
        const r = await request(s, path, { token });
        const csp = String(r.headers['content-security-policy']);
        expect(csp, path).toContain("default-src 'none'");
        expect(csp).toContain("script-src 'self'");
        expect(csp).not.toContain('unsafe-inline');
        expect(csp).not.toContain('unsafe-eval');
        expect(csp).toContain("frame-ancestors 'none'");
        expect(r.headers['x-content-type-options']).toBe('nosniff');
      }
    }
    const page = (await request(s, '/', { token: true })).body;
    expect(page).toMatch(/<script type="module" src="\/assets\/app\.js"><\/script>/);
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).not.toMatch(/<style|\sstyle=|\son[a-z]+=/);
    // Offline: nothing in the page or its code is fetched from another host.
    expect(page).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
  });

  it('trades the token in the URL for an HttpOnly, SameSite=Strict cookie and drops it from the address', async () => {
    const first = await request(s, `/?token=${s.token}`);
    expect(first.status).toBe(303);
    expect(first.headers['location']).toBe('/');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toContain(`=${s.token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const jar = cookie.split(';')[0]!;
    const next = await request(s, '/api/sessions', { headers: { Cookie: jar } });
    expect(next.status).toBe(200);
    // Another dashboard's cookie (another port) is not this one's.
    const other = await request(s, '/api/sessions', { headers: { Cookie: `baton_ui_1=${s.token}` } });
    expect(other.status).toBe(401);
  });

  it('writes nothing to the store, whatever the requests', async () => {
    const before = await storeContent(s);
    const tree = store.name === 'file' ? snapshotTree(w.ws.store) : null;
    for (const path of [
      ...ROUTES,
      '/api/sessions?status=interrupted&q=crash',
      '/api/sessions/crash/resume',
      '/api/sessions/nope',
      '/api/sessions/api/events?type=phase.&agent=bob&order=asc',
    ]) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']) {
        await request(s, path, { method, token: true });
        await request(s, path, { method });
        await request(s, path, { method, token: true, headers: { Host: 'evil.example' } });
      }
    }
    expect(await storeContent(s)).toBe(before);
    if (tree) expect(snapshotTree(w.ws.store)).toEqual(tree);
  });
});
