/**
 * A private PostgreSQL server for tests and benchmarks that must not touch the machine's own
 * (stop it, crash it, fill it, open hundreds of connections): initdb into a temporary folder,
 * its own port, run as the `postgres` user when this process is root (initdb refuses root).
 * No vitest here: bench/scale.ts uses it too.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'pg';

const require = createRequire(import.meta.url);

/** The PostgreSQL server binaries (the newest installed version), or null. */
export function pgBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return null;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0]!, 'bin') : null;
}

/** Runs a command; its stdout. Throws with its stderr. */
export function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Why a private server cannot be started here, or null. */
export function privatePgUnavailable(): string | null {
  if (!pgBin()) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (initdb, pg_ctl)';
  if (process.getuid?.() === 0) {
    try {
      sh('runuser', ['-u', 'postgres', '--', 'true']);
    } catch {
      return 'running as root and there is no `postgres` user to run a private server as (initdb refuses root)';
    }
  }
  return null;
}

/** Options of {@link PrivatePg.start}. */
export interface PrivatePgOptions {
  /** The port (default: a free one). */
  port?: number;
  /** Addresses to listen on besides 127.0.0.1. */
  listen?: string[];
  /** Lines added to pg_hba.conf (e.g. trust for a test subnet). */
  hba?: string[];
  /** Lines added to postgresql.conf. */
  conf?: string[];
}

/** A running private server; {@link stop} it (the folder goes with it). */
export class PrivatePg {
  private constructor(
    readonly root: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  /** initdb, configure, start; waits until it accepts connections. */
  static async start(o: PrivatePgOptions = {}): Promise<PrivatePg> {
    const bin = pgBin();
    if (!bin) throw new Error(privatePgUnavailable()!);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-pg-'));
    const pg = new PrivatePg(root, o.port ?? (await freePort()), bin);
    try {
      fs.chmodSync(root, 0o755);
      fs.mkdirSync(pg.data, { mode: 0o700 });
      if (process.getuid?.() === 0)
        fs.chownSync(pg.data, Number(sh('id', ['-u', 'postgres']).trim()), Number(sh('id', ['-g', 'postgres']).trim()));
      pg.run('initdb', ['-D', pg.data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
      const listen = ['127.0.0.1', ...(o.listen ?? [])].join(',');
      // fsync and synchronous_commit stay on: durability claims are made against this server.
      const conf = [
        `listen_addresses = '${listen}'`,
        `port = ${pg.port}`,
        `unix_socket_directories = '${pg.data}'`,
        'fsync = on',
        'synchronous_commit = on',
        ...(o.conf ?? []),
      ];
      fs.appendFileSync(path.join(pg.data, 'postgresql.conf'), `\n${conf.join('\n')}\n`);
      if (o.hba?.length) fs.appendFileSync(path.join(pg.data, 'pg_hba.conf'), `\n${o.hba.join('\n')}\n`);
      pg.startServer();
      return pg;
    } catch (e) {
      pg.stop();
      throw e;
    }
  }

  /**
   * {@link start}, or why it could not (no server binaries, no `postgres` user, initdb or
   * pg_ctl failed), for callers that skip, saying why, rather than fail.
   */
  static async tryStart(o: PrivatePgOptions = {}): Promise<PrivatePg | string> {
    const why = privatePgUnavailable();
    if (why) return why;
    try {
      return await PrivatePg.start(o);
    } catch (e) {
      return `could not start a private PostgreSQL: ${String((e as { stderr?: unknown }).stderr || e)
        .trim()
        .split('\n')
        .slice(-3)
        .join(' ')}`;
    }
  }

  /** The data folder. */
  get data(): string {
    return path.join(this.root, 'data');
  }

  private run(cmd: string, args: string[]): string {
    const exe = path.join(this.bin, cmd);
    return process.getuid?.() === 0 ? sh('runuser', ['-u', 'postgres', '--', exe, ...args]) : sh(exe, args);
  }

  /** A URL of database `db` on this server (from 127.0.0.1). */
  url(db = 'postgres', params = ''): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${db}${params ? `?${params}` : ''}`;
  }

  /** Starts (again) and waits until it accepts connections. */
  startServer(): void {
    this.run('pg_ctl', ['-D', this.data, '-l', path.join(this.data, 'server.log'), '-w', '-t', '60', 'start']);
  }

  /** Stops: `immediate` is a crash (no checkpoint; WAL recovery at the next start). */
  stopServer(mode: 'fast' | 'immediate' = 'fast'): void {
    this.run('pg_ctl', ['-D', this.data, '-m', mode, '-w', 'stop']);
  }

  /** A plain client on database `db`. */
  async client(db = 'postgres'): Promise<Client> {
    const pg = require('pg') as typeof import('pg');
    const c = new pg.Client({ host: '127.0.0.1', port: this.port, user: 'postgres', database: db });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  }

  /** Stops the server (a crash: nothing to keep) and removes its folder. Never throws. */
  stop(): void {
    try {
      this.stopServer('immediate');
    } catch {
      // not running
    }
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
