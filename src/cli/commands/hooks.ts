import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { BatonError } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { HookLogLine } from '../../manager/index.js';
import { hookDir, locateStore, readHookProblems } from '../../manager/index.js';
import type { HookStore } from '../hooks/command.js';
import { DEFAULT_HOOK_PROGRAM, parseHookCommand, redactStore } from '../hooks/command.js';
import type { HooksChangeReport, HooksStatusEntry } from '../hooks/operations.js';
import type { HookCli, HookScope, Place } from '../hooks/targets.js';
import { HOOK_CLIS, HOOK_TARGETS, isHookCli } from '../hooks/targets.js';
import type { CliIO, Paint } from '../io.js';
import { bind } from '../program.js';

/** The install code and its parsers (jsonc-parser, smol-toml), loaded only by the `hooks` commands. */
const operations = () => import('../hooks/operations.js');

function cliArg(s: string | undefined): HookCli {
  if (s !== undefined && isHookCli(s)) return s;
  throw new BatonError('BAD_INPUT', `Unknown agent CLI ${JSON.stringify(s ?? '')}.`, {
    hint: `Name one of ${HOOK_CLIS.join(', ')}.`,
  });
}

function scopeArg(s: unknown): HookScope {
  if (s === undefined || s === 'project') return 'project';
  if (s === 'user') return 'user';
  throw new BatonError('BAD_INPUT', `--scope must be project or user; got ${JSON.stringify(s)}.`, {
    hint: 'project: the config in this folder; user: the one in your home (or CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME).',
  });
}

function place(io: CliIO): Place {
  return { cwd: io.cwd, env: io.env, home: io.env['HOME'] || os.homedir() };
}

/**
 * The program the installed hooks run: `--command`, else `baton` found on the PATH. Never the
 * absolute paths of this machine by default: a project's hook config is committed and read on
 * other machines. On the PATH, `baton` is npm's link to the same launcher (dist/baton.cjs),
 * so a hook starts as fast as through the paths.
 */
function hookProgram(o: Record<string, unknown>): string {
  return typeof o['command'] === 'string' ? o['command'] : DEFAULT_HOOK_PROGRAM;
}

/** The store the hooks write to: --store, else --dir (made absolute), else none (the agent's nearest .baton). */
function storeOf(ctx: Ctx): HookStore {
  if (ctx.opts.store) return { store: ctx.opts.store };
  if (ctx.opts.dir) return { dir: path.resolve(ctx.io.cwd, ctx.opts.dir) };
  return {};
}

function diffOf(r: HooksChangeReport): string {
  if (!r.changed) return '';
  const { createTwoFilesPatch } = createRequire(import.meta.url)('diff') as typeof import('diff');
  return createTwoFilesPatch(
    r.file,
    r.file,
    r.before ?? '',
    r.after ?? '',
    r.before === null ? '(no file)' : 'now',
    r.after === null ? '(file removed)' : 'after',
  );
}

function renderChange(r: HooksChangeReport, c: Paint): string {
  const title = `${HOOK_TARGETS[r.cli].title} (${r.scope} scope)`;
  const out: string[] = [];
  if (!r.changed) {
    out.push(
      r.action === 'install'
        ? `baton's hooks for ${title} are already in ${r.file}: nothing changed.`
        : `No baton hooks for ${title} in ${r.file}: nothing changed.`,
    );
  } else if (r.action === 'install') {
    out.push(c.green(`Installed baton's hooks for ${title} in ${r.file}.`));
    if (r.added.length) out.push(`  added:   ${r.added.join(', ')}`);
    if (r.updated.length) out.push(`  updated: ${r.updated.join(', ')}`);
    if (r.removed.length) out.push(`  removed: ${r.removed.join(', ')} (no longer used by baton)`);
    out.push(`  command: ${r.command}`);
  } else {
    out.push(
      c.green(
        `Removed baton's hooks for ${title} from ${r.file}${r.after === null ? ' (the file held nothing else and was removed)' : ''}.`,
      ),
    );
    out.push(`  removed: ${r.removed.join(', ')}`);
  }
  if (r.backup) out.push(`  the previous file is kept as ${r.backup}`);
  for (const n of r.notes) out.push(`${c.yellow('note')}: ${n}`);
  return out.join('\n');
}

function renderStatus(entries: HooksStatusEntry[], c: Paint): string {
  const out: string[] = [];
  let cli: HookCli | null = null;
  for (const e of entries) {
    if (e.cli !== cli) {
      cli = e.cli;
      out.push(c.bold(HOOK_TARGETS[e.cli].title));
    }
    const state = e.error
      ? c.red(`unreadable: ${e.error}`)
      : e.events.length
        ? `${c.green('installed')} (${e.events.length} events${e.missing.length ? `; missing ${e.missing.join(', ')}` : ''}) → store: ${e.stores.join('; ')}`
        : e.exists
          ? 'not installed'
          : 'not installed (no file)';
    out.push(`  ${e.scope.padEnd(7)}  ${e.file}`, `           ${state}`);
    const again = `baton hooks install ${e.cli}${e.scope === 'user' ? ' --scope user' : ''}`;
    for (const s of e.stale) out.push(`           ${c.red('stale')}: ${s} no longer exists; run \`${again}\` again`);
    for (const p of e.notFound) {
      out.push(
        `           ${c.red('not found')}: ${p}${p.includes('/') ? '' : ' is not on the PATH'}: these hooks fail until it is${p === 'baton' ? ' (npm install -g baton-sessions; from a checkout: npm install -g . or npm link)' : ''}`,
      );
    }
    if (e.machinePaths.length)
      out.push(
        `           ${c.yellow('this machine only')}: names ${e.machinePaths.join(', ')}; \`${again}\` writes \`baton hook ${e.cli}\`, which works wherever baton is on the PATH`,
      );
  }
  return `${out.join('\n')}\n`;
}

/** The problems the hook logged for one store (from the hook log, through the manager door). */
interface StoreProblems {
  store: string | null;
  log: string;
  total: number;
  problems: HookLogLine[];
  last: HookLogLine | null;
}

/**
 * The hook log problems of every store the installed hooks write to, and of the store this
 * folder would use (where hooks that name none write when the agent runs here), or the one
 * named by --store / --dir.
 */
function hookProblems(io: CliIO, entries: HooksStatusEntry[], here: HookStore = {}): StoreProblems[] {
  const stores: HookStore[] = [here];
  for (const e of entries) for (const c of e.commands) stores.push(parseHookCommand(c)?.store ?? {});
  const out: StoreProblems[] = [];
  const seen = new Set<string>();
  for (const s of stores) {
    const store = locateStore({ url: s.store ?? null, dir: s.dir ?? null, cwd: io.cwd });
    const dir = hookDir(store, io.env);
    if (seen.has(dir)) continue;
    seen.add(dir);
    const p = readHookProblems(dir);
    out.push({ store: store && redactStore(store), log: p.log, total: p.total, problems: p.problems, last: p.last });
  }
  return out;
}

function renderProblems(list: StoreProblems[], c: Paint): string {
  const out: string[] = [];
  for (const p of list) {
    const where = p.store ?? 'no store found from here';
    if (!p.total) {
      out.push(
        `Hook log of ${where}: ${p.last ? `no problems; last hook ${p.last.time} (${p.last.cli ?? '?'} ${p.last.event ?? ''})` : 'no hook has run yet'}.`,
      );
      continue;
    }
    out.push(c.yellow(`Hook log of ${where}: ${p.total} problem(s) (${p.log}):`));
    for (const l of p.problems.slice(-10))
      out.push(`  ${l.time} ${l.level} ${l.code} ${l.cli ?? ''} ${l.event ?? ''}: ${l.message}`);
    out.push('  `baton doctor --fix` acknowledges them once dealt with.');
  }
  return `${out.join('\n')}\n`;
}

/** Registers `baton hooks install|uninstall|status`. */
export function registerHooks(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const hooks = program
    .command('hooks')
    .description("install, remove or show baton's hooks in Claude Code, Codex CLI and Gemini CLI (docs/hooks.md)");
  const change = (name: 'install' | 'uninstall', desc: string) =>
    hooks
      .command(name)
      .description(desc)
      .argument('<cli>', HOOK_CLIS.join(' | '))
      .option('--scope <scope>', 'project (the config in this folder) or user (the one in your config home)', 'project')
      .option('--dry-run', 'print the change as a diff and write nothing')
      .option('--json', 'print machine-readable JSON on stdout')
      .option(
        '--dir <path>',
        'the .baton store the hooks write to (default: the nearest .baton of the folder the agent runs in)',
      )
      .option('--store <url>', 'store URL the hooks write to, e.g. postgres://user@host/db');
  change('install', "merge baton's hook entries into the CLI's config, keeping everything else as it is")
    .option(
      '--command <cmd>',
      'what the hooks run to start baton, before `hook <cli>` (default: baton, found on the PATH)',
    )
    .action(
      bind(io, holder, async (ctx, [cli], o) => {
        const { installHooks } = await operations();
        const store = storeOf(ctx);
        const r = await installHooks({
          cli: cliArg(cli),
          scope: scopeArg(o['scope']),
          place: place(io),
          program: hookProgram(o),
          store,
          dryRun: o['dryRun'] === true,
        });
        if (
          scopeArg(o['scope']) === 'project' &&
          locateStore({ url: store.store ?? null, dir: store.dir ?? null, cwd: io.cwd }) === null
        ) {
          r.notes.push(
            'No baton store is found from this folder yet: the hooks record nothing until `baton init` (and a session started here), or BATON_HOOK_AUTOSTART=1.',
          );
        }
        await emitChange(ctx, r);
      }),
    );
  change('uninstall', "remove baton's hook entries (only those) from the CLI's config").action(
    bind(io, holder, async (ctx, [cli], o) => {
      const { uninstallHooks } = await operations();
      const r = await uninstallHooks({
        cli: cliArg(cli),
        scope: scopeArg(o['scope']),
        place: place(io),
        program: DEFAULT_HOOK_PROGRAM,
        store: {},
        dryRun: o['dryRun'] === true,
      });
      await emitChange(ctx, r);
    }),
  );
  hooks
    .command('status')
    .description("show where baton's hooks are installed, for which store, per CLI and scope")
    .argument('[cli]', HOOK_CLIS.join(' | '))
    .option('--json', 'print machine-readable JSON on stdout')
    .option('--dir <path>', 'also show the hook problems of this .baton store')
    .option('--store <url>', 'also show the hook problems of this store URL, e.g. postgres://user@host/db')
    .action(
      bind(io, holder, async (ctx, [cli]) => {
        const { hooksStatus } = await operations();
        const entries = await hooksStatus(place(io), cli === undefined ? undefined : cliArg(cli));
        const configs = entries.map((e) => ({ ...e, installed: e.events.length > 0 }));
        const problems = hookProblems(io, entries, storeOf(ctx));
        ctx.emit({ configs, problems }, () => renderStatus(entries, ctx.paint) + renderProblems(problems, ctx.paint));
      }),
    );
}

async function emitChange(ctx: Ctx, r: HooksChangeReport): Promise<void> {
  const diff = r.dryRun ? diffOf(r) : undefined;
  const { before: _b, after: _a, ...data } = r;
  if (ctx.json) {
    ctx.emit({ ...data, ...(diff === undefined ? {} : { diff }) }, '');
    return;
  }
  if (r.dryRun) {
    if (diff) ctx.io.stdout(diff);
    ctx.said(r.changed ? `dry run: ${r.file} was not written.` : `dry run: ${r.file} needs no change.`);
    for (const n of r.notes) ctx.warn(n);
    return;
  }
  ctx.emit(data, () => renderChange(r, ctx.paint));
}
