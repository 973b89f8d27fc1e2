/**
 * A test lab of several worker "hosts" on one machine: each host is a network namespace of
 * its own, linked to the root namespace by a veth pair on a private /30, and reaches a
 * PRIVATE PostgreSQL (initdb into a temporary folder, its own port, listening only on the
 * veth addresses and 127.0.0.1) only over that link. Cutting a host's link (`ip link set
 * down`) or delaying it (`tc netem`) is then a real partition for that host alone. The
 * machine's own PostgreSQL is never touched.
 *
 * Needs root (CI runs as root), `ip netns`, and PostgreSQL's server binaries; {@link labUnavailable}
 * says why not, so a test can skip visibly. Everything is removed by {@link Lab.close}, and by
 * an exit hook if the test process dies first.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'pg';
import { BATON, baseEnv } from '../cli/helpers.js';
import type { Result } from '../cli/helpers.js';
import { PrivatePg, freePort, privatePgUnavailable, sh } from '../support/private-pg.js';

/** Why the lab cannot run here (to print with the skip), or null when it can. */
export function labUnavailable(): string | null {
  if (process.platform !== 'linux') return `network namespaces need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0)
    return 'network namespaces and veth links need root (run the tests as root, as CI does)';
  const noServer = privatePgUnavailable();
  if (noServer) return noServer;
  if (!fs.existsSync(BATON)) return `the CLI is not built (${BATON}): run node scripts/build.mjs`;
  const probe = `btprobe${process.pid}`;
  try {
    sh('ip', ['netns', 'add', probe]);
  } catch (e) {
    return `\`ip netns add\` failed: ${((e as { stderr?: string }).stderr ?? String(e)).trim()}`;
  }
  try {
    sh('ip', ['netns', 'del', probe]);
  } catch {
    // removed below by the lab's own clean-up of leftovers at worst
  }
  return null;
}

/** One worker host: a network namespace with a folder of its own. */
export class Host {
  constructor(
    readonly lab: Lab,
    /** Short name (a, b, c…), also its workspace. */
    readonly name: string,
    readonly ns: string,
    /** The root-namespace end of its veth pair: cut and delayed there. */
    readonly link: string,
    /** The store URL as this host reaches it: the server's address on this host's link. */
    readonly url: string,
    /** This host's working folder. */
    readonly dir: string,
  ) {}

  private env(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
    return baseEnv({ BATON_STORE: this.url, BATON_WORKSPACE: `host-${this.name}`, ...extra });
  }

  /** Spawns `node dist/baton.cjs …args` inside this host's namespace (in a process group of its own). */
  spawn(
    args: string[],
    extra: Record<string, string | undefined> = {},
  ): { child: ChildProcess; result: Promise<Result> } {
    const child = spawn('ip', ['netns', 'exec', this.ns, process.execPath, BATON, ...args], {
      cwd: this.dir,
      env: this.env(extra),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.lab.track(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    const result = new Promise<Result>((resolve) => {
      child.on('close', (code, signal) =>
        resolve({
          code: code ?? 128 + (os.constants.signals[signal as NodeJS.Signals] ?? 0),
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
        }),
      );
    });
    return { child, result };
  }

  /** Runs `baton …args` on this host to the end. */
  run(args: string[], extra: Record<string, string | undefined> = {}): Promise<Result> {
    return this.spawn(args, extra).result;
  }

  /** Cuts this host off: its link goes down, so nothing it sends reaches the server. */
  cut(): void {
    sh('ip', ['link', 'set', this.link, 'down']);
  }

  /** Brings its link back. */
  restore(): void {
    sh('ip', ['link', 'set', this.link, 'up']);
  }

  /** Removes a delay set by {@link delay} (nothing when there is none). */
  undelay(): void {
    try {
      sh('tc', ['qdisc', 'del', 'dev', this.link, 'root']);
    } catch {
      // no qdisc of ours on the link
    }
  }

  /**
   * Delays everything the server sends this host by `ms` (tc netem on the link). Returns
   * null when done, else why it cannot be done here (no netem in this kernel).
   */
  delay(ms: number): string | null {
    try {
      sh('tc', ['qdisc', 'replace', 'dev', this.link, 'root', 'netem', 'delay', `${ms}ms`]);
      return null;
    } catch (e) {
      return `tc netem is not available here: ${((e as { stderr?: string }).stderr ?? String(e)).trim()}`;
    }
  }
}

/** The private server, the hosts, and their links. */
export class Lab {
  readonly hosts: Host[] = [];
  /** The store URL from the root namespace (127.0.0.1), for checks behind the hosts' backs. */
  url = '';
  private server: PrivatePg | null = null;
  private readonly children = new Set<ChildProcess>();
  private closed = false;
  private readonly onExit = (): void => this.cleanupSync();

  private constructor(
    private readonly id: string,
    private readonly root: string,
    readonly subnet: number,
  ) {
    process.on('exit', this.onExit);
  }

  /** Starts the server and `hostNames.length` hosts. Throws (after cleaning up) when a step fails. */
  static async start(hostNames: string[]): Promise<Lab> {
    const id = crypto.randomBytes(2).toString('hex');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-lab-'));
    // A random second octet: two labs at once (two test runs) do not share addresses.
    const lab = new Lab(id, root, 100 + crypto.randomInt(100));
    try {
      const port = await freePort();
      hostNames.forEach((name, i) => lab.addHost(name, i, port));
      lab.server = await PrivatePg.start({
        listen: hostNames.map((_, i) => `10.${lab.subnet}.${i}.1`),
        hba: [`host all all 10.${lab.subnet}.0.0/16 trust`],
        port,
        conf: ['max_connections = 200'],
      });
      lab.url = lab.server.url('baton', 'schema=lab&connect_timeout=2');
      const c = await lab.server.client();
      await c.query('CREATE DATABASE baton');
      await c.end();
      return lab;
    } catch (e) {
      lab.cleanupSync();
      throw e;
    }
  }

  private addHost(name: string, i: number, port: number): void {
    const ns = `bt${this.id}${name}`;
    const link = `bt${this.id}${i}r`;
    const peer = `bt${this.id}${i}n`;
    const rootIp = `10.${this.subnet}.${i}.1`;
    const hostIp = `10.${this.subnet}.${i}.2`;
    sh('ip', ['netns', 'add', ns]);
    const dir = path.join(this.root, `host-${name}`);
    fs.mkdirSync(dir);
    this.hosts.push(
      new Host(this, name, ns, link, `postgres://postgres@${rootIp}:${port}/baton?schema=lab&connect_timeout=2`, dir),
    );
    sh('ip', ['link', 'add', link, 'type', 'veth', 'peer', 'name', peer]);
    sh('ip', ['link', 'set', peer, 'netns', ns]);
    sh('ip', ['addr', 'add', `${rootIp}/30`, 'dev', link]);
    sh('ip', ['link', 'set', link, 'up']);
    sh('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', `${hostIp}/30`, 'dev', peer]);
    sh('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', peer, 'up']);
    sh('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
  }

  /** Starts the private server again and waits until it accepts connections. */
  startServer(): void {
    this.server!.startServer();
  }

  /** Stops the private server: `immediate` is a crash (no checkpoint; recovery on start). */
  stopServer(mode: 'fast' | 'immediate' = 'fast'): void {
    this.server!.stopServer(mode);
  }

  /** A plain client from the root namespace. */
  admin(db = 'baton'): Promise<Client> {
    return this.server!.client(db);
  }

  /** The server's clock now. */
  async serverNow(): Promise<number> {
    const c = await this.admin();
    try {
      return (await c.query<{ t: Date }>('SELECT clock_timestamp() AS t')).rows[0]!.t.getTime();
    } finally {
      await c.end();
    }
  }

  /** Remembers a process to kill at close. */
  track(child: ChildProcess): void {
    this.children.add(child);
    child.on('exit', () => this.children.delete(child));
  }

  /** Kills every process left, stops the server, removes links, namespaces and folders. */
  async close(): Promise<void> {
    this.cleanupSync();
  }

  private cleanupSync(): void {
    if (this.closed) return;
    this.closed = true;
    process.off('exit', this.onExit);
    for (const c of this.children) {
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    this.server?.stop();
    for (const h of this.hosts) {
      for (const args of [
        ['link', 'del', h.link],
        ['netns', 'del', h.ns],
      ]) {
        try {
          sh('ip', args);
        } catch {
          // already gone
        }
      }
    }
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
