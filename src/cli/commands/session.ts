import type { Command } from 'commander';
import {
  BatonError,
  changeView,
  checkMirrorSetting,
  goneText,
  initStore,
  initStoreUrl,
  keptListJson,
  MIRROR_KEY,
  parseIdFormat,
  phasesFromList,
  planFileMetadata,
  readPlanFile,
  SESSION_STATUSES,
  statusView,
} from '../../manager/index.js';
import type { SessionState, SessionStatus } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common, strict } from '../program.js';
import type { On } from '../program.js';
import { renderList, renderTombstones } from '../render/list.js';
import { renderStatus } from '../render/status.js';
import { finishedNote, sessionOrJustFinished } from '../finished.js';
import { registerLog } from './log.js';

function changed(ctx: Ctx, s: SessionState, text: string): void {
  ctx.emit(changeView(s), text);
}

/** Registers the session lifecycle commands: init, start, status, list, switch … archive, log, repair. */
export function registerSession(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const on: On = (cmd, action) => cmd.action(bind(io, holder, action));
  registerInit(program, io, on);
  registerStart(program, io, on);
  registerStatus(program, io, on);
  registerList(program, io, on);
  registerLifecycle(program, on);
  registerJournal(program, io, on);
}

/** `init`: create the file store or prepare a database. */
function registerInit(program: Command, io: CliIO, on: On): void {
  on(
    common(
      program
        .command('init')
        .description(
          'create a .baton store at the root of the git work tree (else here, or --dir), or prepare the --store / $BATON_STORE database',
        )
        .option(
          '--shared',
          'a store committed with the project: no .gitignore of its own (on an existing store, removes it)',
        ),
    ),
    async (ctx, _a, o) => {
      const url = ctx.storeUrl;
      if (url && !url.startsWith('file:')) {
        const { root, existed } = await initStoreUrl(url, io.cwd);
        ctx.emit(
          { store: root, created: !existed },
          `${existed ? 'Store already present' : 'Created store'} at ${root}`,
        );
        return;
      }
      const _shared = o['shared'] === true;
      const r = initStore(io.cwd, ctx.opts.dir ?? io.env['BATON_DIR'] ?? null, { shared: o['shared'] === true });
      const how = r.shared ? 'shared: commit it with the project' : 'private: it ignores itself in git';
      const text = r.existed
        ? `Store already present at ${r.root}${r.sharedChanged ? `; now ${how}` : ''}`
        : `Created store at ${r.root} (${how})`;
      ctx.emit({ store: r.root, created: !r.existed, shared: r.shared }, text);
    },
  );
}

/** `start`: a new session from a title and a plan (phases, plan file, budget, mirror). */
function registerStart(program: Command, io: CliIO, on: On): void {
  on(
    common(
      program
        .command('start')
        .description('start a session and make it the active one')
        .argument('<title>', 'what the session is for')
        .option('--id <id>', 'explicit session id')
        .option('--id-format <format>', 'id scheme: date (YYYY-MM-DD-slug), uuid (session-<8 hex>), bmad, wfs', 'date')
        .option('--bmad-prefix <p>', 'BMAD id prefix: SES, ENG, ANA, DES, TST')
        .option('--bmad-client <c>', 'BMAD id client part')
        .option('--bmad-project <p>', 'BMAD id project part')
        .option('--phases <list>', 'comma-separated phase names')
        .option('--plan <file>', 'plan file (.json or .yaml) with the phases, and budgets if it sets any')
        .option('--budget <n>', 'token budget (input + output)')
        .option('--switch', 'pause the active session instead of refusing')
        .option('--force', 'with --switch: pause it even while another run works on it')
        .option('--shared', 'if this creates the store: one committed with the project (no .gitignore of its own)')
        .option('--no-auto-checkpoint', 'do not take a checkpoint each time a phase completes')
        .option(
          '--mirror <format>',
          "keep the session's files in this foreign layout rewritten after every change (see `baton mirror`)",
        )
        .option('--mirror-out <dir>', 'folder of the mirrored files (with --mirror)'),
    ),
    async (ctx, [title], o) => {
      if (o['phases'] !== undefined && o['plan'] !== undefined)
        throw new BatonError('BAD_INPUT', 'Give either --phases or --plan, not both.', { hint: 'Keep one of them.' });
      if ((o['mirror'] === undefined) !== (o['mirrorOut'] === undefined))
        throw new BatonError('BAD_INPUT', '--mirror and --mirror-out go together.', {
          hint: 'Pass both, e.g. --mirror maestro --mirror-out .gemini.',
        });
      const mirror =
        o['mirror'] !== undefined
          ? await checkMirrorSetting(String(o['mirror']), String(o['mirrorOut']), { cwd: io.cwd })
          : null;
      const plan = o['plan'] !== undefined ? await readPlanFile(String(o['plan']), io.cwd) : null;
      const phases = plan ? plan.phases : o['phases'] !== undefined ? await phasesFromList(String(o['phases'])) : [];
      // `start` creates the store where `init` would, so a first run needs no separate init.
      const m = ctx.manager(true, o['shared'] === true);
      if (o['switch'] === true)
        await m.runs.assertActiveFree(
          o['id'] !== undefined ? String(o['id']) : null,
          ctx.run ?? null,
          'start --switch',
          o['force'] === true,
        );
      const s = await m.start({
        title: title ?? '',
        ...(o['id'] !== undefined ? { id: String(o['id']) } : {}),
        idFormat: parseIdFormat(String(o['idFormat'])),
        bmad: {
          prefix: o['bmadPrefix'] as string | undefined,
          client: o['bmadClient'] as string | undefined,
          project: o['bmadProject'] as string | undefined,
        },
        phases,
        budget: o['budget'] !== undefined ? String(o['budget']) : (plan?.budget ?? null),
        ...(plan?.budgets ? { budgets: plan.budgets } : {}),
        switch: o['switch'] === true,
        agent: ctx.agent,
        metadata: {
          ...(o['autoCheckpoint'] === false ? { autoCheckpoint: false } : {}),
          ...(mirror ? { [MIRROR_KEY]: mirror } : {}),
          ...(plan ? planFileMetadata(m.workspace?.root ?? io.cwd, plan) : {}),
        },
      });
      ctx.emit(statusView(s), `Started ${s.id}${s.phases.length ? ` with ${s.phases.length} phase(s)` : ''}`);
    },
  );
}

/** `status`. */
function registerStatus(program: Command, io: CliIO, on: On): void {
  on(
    common(
      program
        .command('status')
        .description('show a session: phases, progress, tokens, errors (none active: the one just finished)'),
    ),
    async (ctx) => {
      const m = ctx.manager();
      const chosen = await sessionOrJustFinished(ctx);
      const s = await m.get(chosen.id);
      const gone = m.leases.holderGone(s.lease ?? null, s);
      if (gone)
        ctx.warn(
          `the lease's holder is gone (${goneText(gone)}): \`baton resume --apply\` or \`baton claim\` takes the session over now, without waiting for the lease to expire`,
        );
      const pricing = m.pricing();
      const note = chosen.finished ? finishedNote(s.id, s.status) : null;
      // Runs of this host found gone (a conversation killed without SessionEnd) read as dead at once (docs/runs.md).
      // Orphans (a dead baton run's command still running here) read as such, neither live nor dead.
      const { dead, orphans } = m.runs.liveness(s);
      ctx.emit(
        { ...statusView(s, io.now().toISOString(), pricing, dead, orphans), ...(note ? { active: false, note } : {}) },
        () =>
          `${renderStatus(s, ctx.paint, io.now(), pricing, dead, orphans)}${note ? `\n${ctx.paint.dim(note)}\n` : ''}`,
      );
    },
  );
}

/** `list`: sessions, or with --deleted their tombstones. */
function registerList(program: Command, io: CliIO, on: On): void {
  on(
    common(
      program
        .command('list')
        .description('list sessions (archived ones with --all)')
        .option('--status <status>', `only sessions with this status (${SESSION_STATUSES.join(', ')})`)
        .option('--all', 'include archived sessions')
        .option('--rebuild', 'rebuild the registry cache from the session folders')
        .option('--deleted', 'list deleted sessions (their tombstones) instead'),
    ),
    async (ctx, _a, o) => {
      if (o['deleted'] === true) {
        const tombstones = await ctx.manager().listDeleted();
        ctx.emit(tombstones, () => renderTombstones(tombstones, ctx.paint, io.now()));
        return;
      }
      const status = o['status'] as string | undefined;
      if (status !== undefined && !(SESSION_STATUSES as readonly string[]).includes(status)) {
        throw new BatonError('BAD_INPUT', `Unknown status ${JSON.stringify(status)}.`, {
          hint: `Use one of: ${SESSION_STATUSES.join(', ')}.`,
        });
      }
      const m = ctx.manager();
      // --workspace filters; BATON_WORKSPACE alone only picks the workspace a command works in.
      const workspace = o['workspace'] as string | undefined;
      const filter = {
        all: o['all'] === true,
        rebuild: o['rebuild'] === true,
        ...(status ? { status: status as SessionStatus } : {}),
        ...(workspace !== undefined ? { workspace } : {}),
      };
      if (ctx.json) {
        // A current view is printed as the bytes read (3 MB over 10,000 sessions), not decoded.
        const bytes = io.stdoutBytes;
        const kept = bytes ? keptListJson(m.store, filter, io.now().toISOString()) : null;
        if (bytes && kept) {
          bytes(kept);
          io.stdout('\n');
        } else io.stdout(`${await m.listJson(filter)}\n`);
        return;
      }
      const rows = await m.list(filter);
      const active = await m.store.getActive();
      // Nothing to show: say whether --all would show archived sessions.
      const archived =
        rows.length || filter.all ? 0 : (await m.list({ ...filter, all: true })).filter((r) => r.archived).length;
      const orphans = await m.runs.orphansOfRows(rows);
      ctx.emit(null, () => renderList(rows, active, ctx.paint, io.now(), archived, orphans));
    },
  );
}

/** `switch`, `pause`, `complete`, `fail`, `abandon`, `archive`: moves between session states. */
function registerLifecycle(program: Command, on: On): void {
  on(
    common(
      program
        .command('switch')
        .description('make another session the active one (pauses the current one)')
        .argument('<id>')
        .option('--force', 'switch even while another run works on the current session'),
    ),
    async (ctx, [id], o) => {
      const m = ctx.manager();
      await m.runs.assertActiveFree(
        await m.expandId(id ?? ''),
        ctx.run ?? null,
        `switch to ${id}`,
        o['force'] === true,
      );
      const s = await m.switchTo(id ?? '', ctx.agent);
      changed(ctx, s, `Switched to ${s.id}`);
    },
  );

  const lifecycle: Array<['pause' | 'complete' | 'fail' | 'abandon', string, string]> = [
    ['pause', 'pause the session (it stays the workspace session)', 'Paused'],
    ['complete', 'mark the session completed (refused while a phase is unfinished, unless --force)', 'Completed'],
    ['fail', 'mark the session failed', 'Failed'],
    ['abandon', 'abandon the session (not resumable)', 'Abandoned'],
  ];
  for (const [verb, description, done] of lifecycle) {
    const cmd = program.command(verb).description(description).option('--reason <text>', 'why');
    if (verb === 'complete')
      cmd.option(
        '--force',
        "complete even with unfinished phases (recorded as left unfinished) or a step the session's toolkit requires first (recorded)",
      );
    if (verb === 'pause') cmd.option('--force', 'pause even while another run works on the session');
    on(strict(common(cmd)), async (ctx, _a, o) => {
      const id = await ctx.sessionId();
      if (verb === 'pause')
        ctx
          .manager()
          .runs.assertNoOtherLiveRun(
            await ctx.manager().get(id),
            ctx.run ?? null,
            `pause session ${id}`,
            o['force'] === true,
          );
      const s = await ctx.manager().lifecycle(id, verb, (o['reason'] as string | undefined) ?? null, {
        ...ctx.change(),
        force: o['force'] === true,
      });
      // Forced past unfinished phases: say which, as the journal records them.
      const left =
        verb === 'complete'
          ? s.phases.filter((p) => p.status !== 'completed' && p.status !== 'skipped').map((p) => p.id)
          : [];
      changed(ctx, s, `${done} ${s.id}${left.length ? ` (left unfinished: ${left.join(', ')})` : ''}`);
    });
  }

  on(
    strict(
      common(
        program
          .command('archive')
          .description('move a finished or paused session to the archive (none active: the one just finished)')
          .argument('[id]')
          .option('--force', "archive even though the session's toolkit requires a step first (recorded)"),
      ),
    ),
    async (ctx, [id], o) => {
      const chosen = await sessionOrJustFinished(ctx, id);
      const s = await ctx.manager().archive(chosen.id, { ...ctx.change(), force: o['force'] === true });
      changed(ctx, s, `Archived ${s.id}${chosen.finished ? ' (the session just finished; none is active)' : ''}`);
    },
  );
}

/** `log` and `repair`: reading and mending the journal. */
function registerJournal(program: Command, io: CliIO, on: On): void {
  registerLog(program, io, on);

  on(
    common(program.command('repair').description("rebuild a session's damaged journal, keeping every readable event")),
    async (ctx) => {
      const id = await ctx.sessionId();
      const reports = await ctx.manager().repair(id);
      ctx.emit(
        { session: id, repairs: reports },
        reports.length
          ? reports.map((r) => r.message).join('\n')
          : `Session ${id}: journal is intact; nothing to repair.`,
      );
    },
  );
}
