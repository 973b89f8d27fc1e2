import fs from 'node:fs';
import path from 'node:path';
import { BatonError } from '../../manager/index.js';
import type { HookStore } from './command.js';
import { buildHookCommand, parseHookCommand, redactStore } from './command.js';
import type { ParsedHookCommand } from './command.js';
import { tomlHooks } from './codex-toml.js';
import { readConfig, writeConfig } from './files.js';
import { findBatonHooks, installInto, uninstallFrom } from './merge.js';
import { absolutePaths, findProgram } from './program.js';
import type { HookCli, HookScope, Place } from './targets.js';
import { HOOK_CLIS, HOOK_SCOPES, HOOK_TARGETS, configFile } from './targets.js';

/** What `baton hooks install|uninstall` is asked to do. */
export interface HooksChangeOptions {
  cli: HookCli;
  scope: HookScope;
  place: Place;
  /** Shell text that starts baton in the installed command (`baton`, or `--command`'s). */
  program: string;
  store: HookStore;
  dryRun: boolean;
}

/** What an install or uninstall did (or, with dryRun, would do) to one config file. */
export interface HooksChangeReport {
  action: 'install' | 'uninstall';
  cli: HookCli;
  scope: HookScope;
  file: string;
  dryRun: boolean;
  changed: boolean;
  /** The file's text before and after (null: no file). */
  before: string | null;
  after: string | null;
  /** Where the previous file was kept (null: nothing written, or no previous file). */
  backup: string | null;
  command: string | null;
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
  /** What the user must still do or know (Codex trust, a password in the command…). */
  notes: string[];
}

/** Codex keeps hooks either in hooks.json or under [hooks] in config.toml, in the same folder. */
async function codexTomlHooks(file: string): Promise<{ toml: string; events: string[]; baton: string[] } | null> {
  const toml = path.join(path.dirname(file), 'config.toml');
  const text = readConfig(toml);
  if (text === null) return null;
  const h = tomlHooks(text, toml);
  return { toml, events: h.events, baton: h.baton.map((b) => b.event) };
}

function codexNotes(scope: HookScope, place: Place, file: string): string[] {
  const notes = [
    'Codex runs a new or changed hook only after you trust it: start `codex` in this project, open `/hooks` and trust the baton entries (once per change of the command).',
  ];
  if (scope === 'project') {
    notes.push(
      `Codex reads ${path.relative(place.cwd, file)} only in a trusted project: trust ${place.cwd} when Codex asks (it is kept as trust_level = "trusted" under [projects."${place.cwd}"] in config.toml).`,
    );
  }
  return notes;
}

function storeNotes(store: HookStore): string[] {
  return store.store && /^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(store.store)
    ? [
        'The store URL holds a password, and the config file now holds it too: prefer a URL without one (PGPASSWORD or ~/.pgpass).',
      ]
    : [];
}

const INSTALL_BATON =
  'install baton on the PATH: `npm install -g baton-sessions`, or from a checkout `npm install -g .` (or `npm link`)';

/**
 * The installed command as a hook entry: it must be recognised as baton's (or uninstall and
 * status would not find it again); BAD_INPUT for a --command that does not run baton.
 */
function checkedCommand(o: HooksChangeOptions): { command: string; parsed: ParsedHookCommand } {
  const command = buildHookCommand({ program: o.program, cli: o.cli, ...o.store });
  const parsed = parseHookCommand(command);
  if (!o.program.trim() || !parsed || parsed.cli !== o.cli) {
    throw new BatonError(
      'BAD_INPUT',
      `--command ${JSON.stringify(o.program.slice(0, 200))} does not start baton: the hook command would be ${JSON.stringify(command.slice(0, 300))}, which baton could not recognise as its own.`,
      {
        hint: "Give the words that start baton, ending with its program (baton, baton-sessions, or a path to dist/baton.cjs), e.g. --command 'node /path/to/baton/dist/baton.cjs'; baton adds `hook <cli>`.",
      },
    );
  }
  return { command, parsed };
}

/** What the user should know about the command written: a program not found, paths of this machine in a shared file. */
function programNotes(o: HooksChangeOptions, parsed: ParsedHookCommand): string[] {
  const notes: string[] = [];
  if (findProgram(parsed.launcher, o.place.env, o.place.cwd) === null) {
    notes.push(
      parsed.launcher === 'baton'
        ? `\`baton\` is not on the PATH here, so the hooks fail (quietly: the agent is never stopped) until it is: ${INSTALL_BATON}; or install the hooks with --command 'node /path/to/baton/dist/baton.cjs'.`
        : `${parsed.launcher} is not found here${parsed.launcher.includes('/') ? '' : ' on the PATH'}, so the hooks fail (quietly) until it is.`,
    );
  }
  const abs = absolutePaths(parsed);
  if (o.scope === 'project' && abs.length) {
    notes.push(
      `The command names paths of this machine (${abs.join(', ')}); a project's config file is often committed, and other machines may not have them: the default (\`baton hook ${o.cli}\`, found on the PATH) works wherever baton is installed.`,
    );
  }
  return notes;
}

function finish(
  o: HooksChangeOptions,
  action: HooksChangeReport['action'],
  file: string,
  before: string | null,
  r: ReturnType<typeof installInto>,
  command: string | null,
  notes: string[],
): HooksChangeReport {
  // A file left holding only `{}` by an uninstall was baton's alone: it goes. An uninstall
  // also takes away the backup its install left (see writeConfig).
  const after =
    action === 'uninstall' && r.changed && r.text.trim() === '{}' ? null : r.changed || before !== null ? r.text : null;
  let backup: string | null = null;
  if (r.changed && !o.dryRun) backup = writeConfig(file, after, { keepBackup: action === 'install' }).backup;
  return {
    action,
    cli: o.cli,
    scope: o.scope,
    file,
    dryRun: o.dryRun,
    changed: r.changed,
    before,
    after,
    backup,
    command,
    added: r.added,
    updated: r.updated,
    removed: r.removed,
    unchanged: r.unchanged,
    notes,
  };
}

/**
 * Merges baton's hook entries into the CLI's config file of the scope: refuses a file that
 * does not parse (BAD_INPUT, nothing written), writes atomically with a backup, and changes
 * nothing when baton's entries are already there as they should be.
 */
export async function installHooks(o: HooksChangeOptions): Promise<HooksChangeReport> {
  const t = HOOK_TARGETS[o.cli];
  const file = configFile(t, o.scope, o.place);
  const before = readConfig(file);
  if (o.cli === 'codex') {
    const toml = await codexTomlHooks(file);
    if (toml?.events.length) {
      throw new BatonError(
        'BAD_INPUT',
        `Codex hooks are kept in ${toml.toml} ([hooks]: ${toml.events.join(', ')}); baton does not rewrite config.toml, because no TOML library it could use keeps that file's comments and layout intact. Nothing was written.`,
        {
          hint: `Move the [hooks] tables of ${toml.toml} into ${file} (the same entries as JSON: {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "…"}]}]}}), then run the command again.`,
          details: { file: toml.toml },
        },
      );
    }
  }
  const { command, parsed } = checkedCommand(o);
  const r = installInto(before, t, command, file);
  const notes = [
    ...programNotes(o, parsed),
    ...storeNotes(o.store),
    ...(o.cli === 'codex' && r.changed ? codexNotes(o.scope, o.place, file) : []),
  ];
  return finish(o, 'install', file, before, r, command, notes);
}

/** Removes baton's hook entries (and nothing else) from the CLI's config file of the scope. */
export async function uninstallHooks(o: HooksChangeOptions): Promise<HooksChangeReport> {
  const t = HOOK_TARGETS[o.cli];
  const file = configFile(t, o.scope, o.place);
  const before = readConfig(file);
  const r = uninstallFrom(before, t, file);
  const notes: string[] = [];
  if (o.cli === 'codex') {
    const toml = await codexTomlHooks(file);
    if (toml?.baton.length)
      notes.push(
        `${toml.toml} also runs baton for ${toml.baton.join(', ')} under [hooks]; baton does not rewrite config.toml: remove those entries by hand.`,
      );
  }
  return finish(o, 'uninstall', file, before, { ...r, text: before === null ? '' : r.text }, null, notes);
}

/** One CLI's hook config in one scope, as `baton hooks status` reports it. */
export interface HooksStatusEntry {
  cli: HookCli;
  scope: HookScope;
  file: string;
  exists: boolean;
  /** Why the file could not be read (it does not parse…), else null. */
  error: string | null;
  /** Events with a baton handler, and those of baton's list without one. */
  events: string[];
  missing: string[];
  /** The stores the handlers write to ("nearest .baton" when none is named), distinct. */
  stores: string[];
  /** Node binaries or baton bundles the handlers name that no longer exist. */
  stale: string[];
  /** Programs the handlers start that are not found (not on the PATH, or no such file): those hooks fail. */
  notFound: string[];
  /** Absolute paths the handlers of a project's config name: they tie a shared file to this machine. */
  machinePaths: string[];
  /** The baton command lines, distinct. */
  commands: string[];
}

function storeLabel(s: HookStore): string {
  if (s.store) return redactStore(s.store);
  if (s.dir) return s.dir;
  return "nearest .baton above the agent's folder";
}

async function statusOf(cli: HookCli, scope: HookScope, place: Place): Promise<HooksStatusEntry> {
  const t = HOOK_TARGETS[cli];
  const file = configFile(t, scope, place);
  const text = readConfig(file);
  const e: HooksStatusEntry = {
    cli,
    scope,
    file,
    exists: text !== null,
    error: null,
    events: [],
    missing: [],
    stores: [],
    stale: [],
    notFound: [],
    machinePaths: [],
    commands: [],
  };
  const found: Array<{ event: string; command: string }> = [];
  try {
    if (text !== null) found.push(...findBatonHooks(text, t, file));
    if (cli === 'codex') {
      const toml = path.join(path.dirname(file), 'config.toml');
      const tt = readConfig(toml);
      if (tt !== null) found.push(...tomlHooks(tt, toml).baton);
    }
  } catch (err) {
    e.error = (err as Error).message;
  }
  e.events = [...new Set(found.map((f) => f.event))];
  e.missing = e.events.length ? t.events.filter((ev) => !e.events.includes(ev)) : [];
  e.commands = [...new Set(found.map((f) => f.command))];
  for (const c of e.commands) {
    const p = parseHookCommand(c);
    if (!p) continue;
    const label = storeLabel(p.store);
    if (!e.stores.includes(label)) e.stores.push(label);
    for (const f of [p.node, p.script])
      if (f && path.isAbsolute(f) && !fs.existsSync(f) && !e.stale.includes(f)) e.stale.push(f);
    if (
      !e.stale.includes(p.launcher) &&
      !e.notFound.includes(p.launcher) &&
      findProgram(p.launcher, place.env, place.cwd) === null
    )
      e.notFound.push(p.launcher);
    if (scope === 'project') for (const f of absolutePaths(p)) if (!e.machinePaths.includes(f)) e.machinePaths.push(f);
  }
  return e;
}

/** The hook configs of every CLI (or one) in both scopes. */
export async function hooksStatus(place: Place, only?: HookCli): Promise<HooksStatusEntry[]> {
  const out: HooksStatusEntry[] = [];
  for (const cli of only ? [only] : HOOK_CLIS)
    for (const scope of HOOK_SCOPES) out.push(await statusOf(cli, scope, place));
  return out;
}
