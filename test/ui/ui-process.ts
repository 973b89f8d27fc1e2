/**
 * `baton ui` as a real process for tests that look at what it does to a store: started from
 * the built CLI (optionally through a wrapper such as `setpriv`, to run as another user), its
 * URL read from stdout, and every page and API route of a session fetched with the token.
 */
import { spawn } from 'node:child_process';
import { BATON, baseEnv, needBuiltCli } from '../cli/helpers.js';

/** A running `baton ui`. */
export interface UiProcess {
  url: string;
  token: string;
  stderr: () => string;
  /** Stops it with SIGINT and resolves with its exit code. */
  stop: () => Promise<number | null>;
}

/** Starts `baton ui` in `cwd` (through `wrap`, e.g. setpriv, when given) and waits for its URL. */
export function startUiProcess(
  cwd: string,
  o: { env?: Record<string, string | undefined>; wrap?: string[] } = {},
): Promise<UiProcess> {
  needBuiltCli();
  const [cmd, ...pre] = o.wrap?.length ? o.wrap : [process.execPath];
  const args = o.wrap?.length ? [...pre, process.execPath, BATON, 'ui'] : [BATON, 'ui'];
  const child = spawn(cmd!, args, { cwd, env: baseEnv(o.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (!out.includes('\n')) return;
      const url = out.split('\n')[0]!;
      resolve({
        url,
        token: new URL(url).searchParams.get('token')!,
        stderr: () => err,
        stop: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
          return exited;
        },
      });
    });
    void exited.then((code) => reject(new Error(`baton ui exited (${code}) before printing its URL:\n${err}`)));
  });
}

/** One fetched page: its status and body. */
export interface Page {
  status: number;
  body: string;
}

/**
 * Loads what a browser showing session `id` loads: the page, its script and style, the store,
 * the sessions list, the session, its event log and resume plan, and a moment of the live
 * stream. Keyed by path.
 */
export async function loadPages(ui: UiProcess, id: string): Promise<Record<string, Page>> {
  const headers = { Authorization: `Bearer ${ui.token}` };
  const paths = [
    '/',
    '/assets/app.js',
    '/assets/app.css',
    '/api',
    '/api/sessions',
    `/api/sessions/${id}`,
    `/api/sessions/${id}/events`,
    `/api/sessions/${id}/resume`,
  ];
  const out: Record<string, Page> = {};
  for (const p of paths) {
    const r = await fetch(new URL(p, ui.url), { headers });
    out[p] = { status: r.status, body: await r.text() };
  }
  // The live stream: its first frame, then the page goes away.
  const ac = new AbortController();
  const live = await fetch(new URL('/api/live', ui.url), { headers, signal: ac.signal });
  const reader = live.body!.getReader();
  const first = await reader.read();
  out['/api/live'] = { status: live.status, body: Buffer.from(first.value ?? new Uint8Array()).toString('utf8') };
  ac.abort();
  await reader.cancel().catch(() => undefined);
  return out;
}
