/**
 * A private PostgreSQL server for tests and trials that must restart, stop or kill their
 * server: initdb into a temp folder, its own port and socket folder, run as the `postgres`
 * user when this process is root (initdb refuses root). Never touches the machine's server.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The newest PostgreSQL bin folder installed the Debian way, or null. */
function binDir(): string | null {
  const base = '/usr/lib/postgresql';
  let versions: string[];
  try {
    versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')));
  } catch {
    return null;
  }
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], 'bin') : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A running private server; {@link PrivatePg.start} makes one. */
export class PrivatePg {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Starts a fresh server, or returns why it cannot (no PostgreSQL installed, initdb failed…). */
  static async start(): Promise<PrivatePg | string> {
    const bin = binDir();
    if (!bin) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-pg-'));
    const pg = new PrivatePg(dir, await freePort(), bin);
    try {
      if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
      pg.run('initdb', ['-D', pg.data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
      pg.up();
      return pg;
    } catch (e) {
      pg.remove();
      return `could not start a private PostgreSQL: ${String((e as { stderr?: Buffer }).stderr ?? e).trim().split('\n').slice(-3).join(' ')}`;
    }
  }

  private get data(): string {
    return path.join(this.dir, 'data');
  }

  private run(tool: string, args: string[]): void {
    const exe = path.join(this.bin, tool);
    if (process.getuid?.() === 0) execFileSync('runuser', ['-u', 'postgres', '--', exe, ...args], { stdio: 'pipe', timeout: 120_000 });
    else execFileSync(exe, args, { stdio: 'pipe', timeout: 120_000 });
  }

  /** Starts the server (waits until it accepts connections). */
  up(): void {
    // fsync off: these servers die only as processes, never with the machine, and the disk is shared.
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    this.run('pg_ctl', ['-D', this.data, '-l', path.join(this.dir, 'log'), '-o', opts, '-w', '-t', '120', 'start']);
  }

  /** Stops the server: `fast` ends every session cleanly, `immediate` kills it like a crash. */
  down(mode: 'fast' | 'immediate' = 'fast'): void {
    this.run('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '120', 'stop']);
  }

  /** Stops the server and removes its folder. */
  close(): void {
    try {
      this.down('immediate');
    } catch {
      // already down
    }
    this.remove();
  }

  private remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
