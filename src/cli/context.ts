import { BatonError, openManager } from '../manager/index.js';
import type { RepairReport, SessionManager } from '../manager/index.js';
import type { CliIO, Paint } from './io.js';
import { cliWords } from './hint-words.js';
import { fitText, terminalPaint } from './terminal.js';

/** Options every command accepts. */
export interface CommonOptions {
  session?: string;
  json?: boolean;
  dir?: string;
  /** Store URL (--store); else BATON_STORE. */
  store?: string;
  agent?: string;
  ifRevision?: string;
  /** Workspace on a shared store (--workspace); else BATON_WORKSPACE. */
  workspace?: string;
  /** --quiet: no confirmations, progress or notices; data, warnings and errors still print. */
  quiet?: boolean;
  /** --verbose: say more on stderr (the store used, timings). */
  verbose?: boolean;
}

/**
 * Per-invocation context: parsed common options, the manager (opened lazily so `--help`
 * costs no I/O), output helpers. Data goes to stdout, diagnostics to stderr.
 */
export class Ctx {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** Drawing helpers for stdout (colour, symbols, width). */
  readonly paint: Paint;
  /** Drawing helpers for stderr, which may be a terminal when stdout is not. */
  readonly errPaint: Paint;
  /** Exit status a command chose (e.g. `run` passes on its child's); 0 when unset. */
  exitCode: number | undefined;
  private mgr: SessionManager | null = null;
  // process.hrtime, not performance.now(): the global `performance` loads node:perf_hooks
  // (a millisecond of every command's start-up, which BENCHMARKS.md's `tokens add` row needs) for a
  // figure only --verbose prints.
  private readonly started = process.hrtime.bigint();

  /** The command prints data, which --quiet keeps (else only a confirmation, which it drops). */
  private readonly printsData: boolean;

  constructor(
    readonly io: CliIO,
    readonly opts: CommonOptions,
    o: { printsData?: boolean } = {},
  ) {
    this.printsData = o.printsData ?? true;
    this.json = opts.json === true;
    this.quiet = opts.quiet === true;
    this.verbose = opts.verbose === true && !this.quiet;
    this.paint = terminalPaint(io, { json: this.json });
    this.errPaint = terminalPaint(io, { stream: 'stderr' });
  }

  /** The agent name: --agent, else BATON_AGENT, else null. */
  get agent(): string | null {
    return this.opts.agent ?? this.io.env['BATON_AGENT'] ?? null;
  }

  /** Strict compare-and-set revision from --if-revision, if given. */
  get expectedRevision(): number | undefined {
    const raw = this.opts.ifRevision;
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw)) {
      throw new BatonError('BAD_INPUT', `--if-revision must be a revision number; got ${JSON.stringify(raw)}.`, {
        hint: 'Pass the revision shown by `baton status` (e.g. --if-revision 42).',
      });
    }
    return Number(raw);
  }

  /** The named workspace: --workspace, else BATON_WORKSPACE (empty means unset), else null (this host and project folder). */
  get workspace(): string | null {
    return this.opts.workspace ?? (this.io.env['BATON_WORKSPACE'] || null);
  }

  /** The store URL: --store, else BATON_STORE (an empty one means unset), else null. */
  get storeUrl(): string | null {
    return this.opts.store ?? (this.io.env['BATON_STORE'] || null);
  }

  /** The manager over the store named by --store / BATON_STORE / --dir / BATON_DIR, else the nearest `.baton`. */
  manager(create = false, shared = false, readOnly = false): SessionManager {
    if (this.mgr) return this.mgr;
    this.mgr = openManager({
      shared,
      readOnly,
      url: this.storeUrl,
      dir: this.opts.dir ?? this.io.env['BATON_DIR'] ?? null,
      cwd: this.io.cwd,
      create,
      now: this.io.now,
      agent: this.agent,
      workspace: this.workspace,
      env: this.io.env,
      pricingFile: this.io.env['BATON_PRICING'] || null,
      onRepair: (r) => this.warnRepair(r),
      onWarning: (message) => this.warn(message),
      // Derived files are written once, when the command (or an MCP call) ends: see flushChanges.
      derivedFiles: { handoff: this.io.env['BATON_HANDOFF'] !== 'off', refresh: 'flush', hintWords: cliWords },
    });
    this.detail(`${this.mgr.store.kind} store ${this.mgr.store.location}`);
    return this.mgr;
  }

  /** The session to act on: --session, else BATON_SESSION, else the active one. */
  async sessionId(explicit?: string): Promise<string> {
    // An empty BATON_SESSION means unset, as usual for environment variables; an empty
    // --session or argument is an error the manager reports.
    const env = this.io.env['BATON_SESSION'] || null;
    return this.manager().resolve(explicit ?? this.opts.session ?? env);
  }

  /**
   * The fencing token of the lease this process works under: `baton run` hands its child
   * BATON_LEASE_TOKEN, so a child that outlives its lease is refused (FENCED).
   */
  get fencingToken(): number | undefined {
    const raw = this.io.env['BATON_LEASE_TOKEN'];
    if (!raw) return undefined;
    if (!/^\d+$/.test(raw))
      throw new BatonError('BAD_INPUT', `BATON_LEASE_TOKEN must be a number; got ${JSON.stringify(raw)}.`, {
        hint: 'Unset it, or use the value `baton run` set.',
      });
    return Number(raw);
  }

  /** The run this process works in: BATON_RUN, which `baton run` hands its command (changes are made in it; records naming no phase go to its phase). */
  get run(): string | undefined {
    return this.io.env['BATON_RUN'] || undefined;
  }

  /** Change options for the manager. */
  change(): { agent: string | null; expectedRevision?: number; fencingToken?: number; run?: string } {
    const r = this.expectedRevision;
    const t = this.fencingToken;
    const run = this.run;
    return {
      agent: this.agent,
      ...(r === undefined ? {} : { expectedRevision: r }),
      ...(t === undefined ? {} : { fencingToken: t }),
      ...(run ? { run } : {}),
    };
  }

  /** Problems found on a read-only store and reported already (see warnRepair). */
  private readonly found = new Set<string>();

  private warnRepair(r: RepairReport): void {
    // Found on a store that cannot be written: reported (once per process: `baton ui` reads the
    // same session again at each request), left for a writable open to repair.
    if (r.repaired === false) {
      if (this.found.has(r.message)) return;
      this.found.add(r.message);
    }
    const label = r.repaired === false ? `found[${r.kind}]` : `repaired[${r.kind}]`;
    this.io.stderr(fitText(`${this.errPaint.yellow(label)}: ${r.message}\n`, this.errPaint));
  }

  /**
   * Prints a result: `data` as JSON with --json, else the human text made to fit the
   * terminal (`document`: as it is); with --quiet, a command that changes state prints no
   * confirmation (its exit status says it worked), while one that prints data still does,
   * unless this text is a `confirmation` (see {@link confirm}).
   */
  emit(data: unknown, human: string | (() => string), o: { document?: boolean; confirmation?: boolean } = {}): void {
    if (this.json) this.io.stdout(`${JSON.stringify(data, null, 2)}\n`);
    else if (!this.quiet || (this.printsData && o.confirmation !== true)) {
      const text = typeof human === 'function' ? human() : human;
      const full = text.endsWith('\n') ? text : `${text}\n`;
      // A document (the Markdown handoff) is printed as it is: wrapping would break its tables.
      if (text) this.io.stdout(o.document ? full : fitText(full, this.paint));
    }
  }

  /**
   * Confirms a change (`Resumed …`, `Sent 12 spans …`): `data` with --json, else `human`,
   * which --quiet drops even in a command that otherwise prints data (`resume --apply`).
   */
  confirm(data: unknown, human: string | (() => string)): void {
    this.emit(data, human, { confirmation: true });
  }

  /** A confirmation on stderr (`baton run`'s start and end of its child): dropped by --quiet. */
  said(message: string): void {
    if (!this.quiet) this.io.stderr(fitText(`${message}\n`, this.errPaint));
  }

  /** A problem that did not stop the command, on stderr (--quiet keeps warnings: they need acting on). */
  warn(message: string): void {
    this.io.stderr(fitText(`${this.errPaint.yellow('warning')}: ${message}\n`, this.errPaint));
  }

  /** A notice on stderr (`watching …`, `waiting …`): not with --quiet or --json. */
  notice(message: string): void {
    if (this.quiet || this.json) return;
    this.io.stderr(fitText(`${message}\n`, this.errPaint));
  }

  /** A detail only --verbose asks for, on stderr. */
  detail(message: string): void {
    if (this.verbose) this.io.stderr(fitText(`${this.errPaint.dim(`baton: ${message}`)}\n`, this.errPaint));
  }

  /**
   * Brings the files derived from the sessions changed so far up to date (the manager's
   * {@link DerivedFiles.flush}); returns warnings. A command does this once at close.
   */
  async flushChanges(): Promise<string[]> {
    return this.mgr ? this.mgr.derivedFiles.flush() : [];
  }

  async close(): Promise<void> {
    for (const w of await this.flushChanges()) this.warn(w);
    // The manager's close: its snapshots in flight land before the store closes.
    await this.mgr?.close();
    this.detail(`done in ${Math.round(Number(process.hrtime.bigint() - this.started) / 1e6)} ms`);
  }
}
