import type { Command } from 'commander';
import { BatonError, changeView, corruptCheckpoint } from '../../manager/index.js';
import type { CheckpointDetail, CheckpointInfo } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO, Paint } from '../io.js';
import { bind, common, strict } from '../program.js';
import type { Action } from '../program.js';
import { renderTable } from '../render/table.js';
import { ago } from '../render/time.js';

type Git = CheckpointInfo['git'];

/** `main@1a2b3c4` (+ `*` when dirty), `detached@…`, or `-` outside git. */
function gitLabel(g: Git): string {
  if (!g) return '-';
  return `${g.branch ?? 'detached'}@${g.head ? g.head.slice(0, 7) : '(no commits)'}${g.dirty ? '*' : ''}`;
}

function stateText(c: CheckpointInfo): string {
  if (!c.valid) return `INVALID: ${c.problem ?? 'unreadable'}`;
  return c.superseded ? 'superseded' : 'ok';
}

function stateLabel(c: CheckpointInfo, p: Paint, width = 0): string {
  const t = stateText(c).padEnd(width);
  return !c.valid ? p.red(t) : c.superseded ? p.yellow(t) : p.green(t);
}

/** The human `baton checkpoints` table: the name (and a damaged one's problem) cut to fit. */
function renderList(list: CheckpointInfo[], p: Paint, now: Date): string {
  if (!list.length) return 'No checkpoints. Take one with `baton checkpoint [NAME]`.\n';
  const rows = list.map((c) => {
    const auto = c.trigger === 'phase' ? p.dim(' (auto)') : '';
    const cells = [c.id, String(c.revision ?? '?'), c.createdAt ? ago(c.createdAt, now) : '?', gitLabel(c.git)];
    // A damaged checkpoint's problem is long: it goes last rather than widening the column.
    if (!c.valid) return [...cells, p.red('INVALID'), `${c.name}${auto}  ${p.red(`(${c.problem ?? 'unreadable'})`)}`];
    return [...cells, stateLabel(c, p), `${c.name}${auto}`];
  });
  const columns = [
    { header: 'ID', shrink: true },
    { header: 'REV', align: 'right' as const },
    { header: 'WHEN', align: 'right' as const },
    { header: 'GIT' },
    { header: 'STATE' },
    { header: 'NAME', flex: true },
  ];
  return `${renderTable(columns, rows, p).join('\n')}\n`;
}

/** The human `baton checkpoint show`. */
function renderShow(d: CheckpointDetail, p: Paint, now: Date): string {
  const c = d.info;
  const cp = d.checkpoint!;
  const out = [
    `Checkpoint ${p.bold(c.id)}  ${c.name}`,
    `Session ${cp.sessionId} at revision ${cp.revision} · taken ${ago(cp.createdAt, now)} (${cp.createdAt})${c.trigger === 'phase' ? ` · automatic, phase ${c.phaseId} completed` : ''}`,
    `State: ${stateLabel(c, p)}${c.recorded ? '' : p.yellow(' (not in the journal)')}`,
    `Git: ${cp.git ? `${cp.git.branch ? `branch ${cp.git.branch}` : 'detached HEAD'}, HEAD ${cp.git.head ?? '(no commits)'}${cp.git.dirty ? `, uncommitted changes${cp.git.snapshot ? ` (kept in ${cp.git.snapshot.slice(0, 12)})` : ' (not kept: restore --git refuses it)'}` : ', clean'}` : 'not a git work tree'}`,
    `Phases: ${cp.state.phases.length ? cp.state.phases.map((x) => `${x.id} ${x.status}`).join(', ') : 'none'}`,
  ];
  const files = d.drift ?? cp.files.map((f) => ({ ...f, status: null }));
  out.push(
    `Files: ${files.length}${d.drift ? ` (${d.drift.filter((f) => f.status !== 'unchanged').length} differ from the workspace now)` : ''}`,
  );
  for (const f of files) {
    const hash = f.sha256 ? f.sha256.slice(0, 12) : 'absent';
    out.push(`  ${f.path}  ${hash}${f.status && f.status !== 'unchanged' ? `  ${p.yellow(`now ${f.status}`)}` : ''}`);
  }
  return `${out.join('\n')}\n`;
}

/** Registers `checkpoint`, `checkpoint show|validate`, `checkpoints` and `restore`. */
export function registerCheckpoints(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const on = (cmd: Command, action: Action): Command => cmd.action(bind(io, holder, action));

  const checkpoint = on(
    strict(
      common(
        program
          .command('checkpoint')
          .description(
            'save a named, checksummed checkpoint of the session (state, git HEAD, file hashes); show|validate one',
          )
          .argument('[name]', 'what the checkpoint marks (default: "revision N")')
          .option('--name <text>', 'the name, for one that is also a subcommand (show, validate)'),
      ),
    ),
    async (ctx, [arg], o) => {
      if (arg !== undefined && o['name'] !== undefined)
        throw new BatonError('BAD_INPUT', 'Give the name once: as an argument or with --name.', {
          hint: 'Keep one of them.',
        });
      const id = await ctx.sessionId();
      const name = (o['name'] as string | undefined) ?? arg ?? null;
      const r = await ctx.manager().checkpoints.create(id, { name }, ctx.change());
      const c = r.info;
      ctx.emit(
        { ...changeView(r.state), checkpoint: c },
        `Checkpoint ${c.id} "${c.name}" at revision ${c.revision}${c.git ? ` · git ${gitLabel(c.git)}` : ''} · ${c.files} file(s) hashed`,
      );
    },
  );

  on(
    common(
      checkpoint
        .command('show')
        .description('show a checkpoint: revision, git, phases, files compared with now')
        .argument('<id>', 'checkpoint id'),
    ),
    async (ctx, [cpId]) => {
      const id = await ctx.sessionId();
      const d = await ctx.manager().checkpoints.show(id, cpId ?? '');
      if (!d.checkpoint) throw corruptCheckpoint(id, d.info, d.fallback);
      const cp = d.checkpoint;
      ctx.emit({ ...d.info, sessionId: cp.sessionId, git: cp.git, files: d.drift ?? cp.files, state: cp.state }, () =>
        renderShow(d, ctx.paint, io.now()),
      );
    },
  );

  on(
    common(
      checkpoint
        .command('validate')
        .description('check a checkpoint (exit 0 when valid, CORRUPT naming the problem and the previous valid one)')
        .argument('<id>', 'checkpoint id'),
    ),
    async (ctx, [cpId]) => {
      const id = await ctx.sessionId();
      const v = await ctx.manager().checkpoints.validate(id, cpId ?? '');
      if (!v.valid) throw corruptCheckpoint(id, v.info, v.fallback);
      ctx.emit(
        { valid: true, checkpoint: v.info },
        `Checkpoint ${v.info.id} is valid: checksum and contents check out (revision ${v.info.revision}${v.info.superseded ? ', superseded by a later restore' : ''}).`,
      );
    },
  );

  on(
    common(
      program
        .command('checkpoints')
        .description("list the session's checkpoints: id, revision, time, git, validity, name"),
    ),
    async (ctx) => {
      const id = await ctx.sessionId();
      const list = await ctx.manager().checkpoints.list(id);
      ctx.emit(list, () => renderList(list, ctx.paint, io.now()));
    },
  );

  registerRestore(program, on);
}

/** Registers `restore` (the manager's checkpoints.restore, with --git and --force). */
function registerRestore(program: Command, on: (cmd: Command, action: Action) => Command): void {
  on(
    strict(
      common(
        program
          .command('restore')
          .description(
            'restore a checkpoint: appends checkpoint.restored (history is kept), supersedes later checkpoints',
          )
          .argument('<id>', 'checkpoint id')
          .option(
            '--git',
            'also put the git work tree back as it was at the checkpoint, uncommitted work included (refuses uncommitted changes)',
          )
          .option('--force', 'with --git: discard uncommitted changes to tracked files'),
      ),
    ),
    async (ctx, [cpId], o) => {
      if (o['force'] === true && o['git'] !== true) {
        throw new BatonError('BAD_INPUT', '--force only applies with --git.', {
          hint: 'Add --git to reset the work tree, or drop --force.',
        });
      }
      const id = await ctx.sessionId();
      const r = await ctx
        .manager()
        .checkpoints.restore(id, cpId ?? '', { ...ctx.change(), git: o['git'] === true, force: o['force'] === true });
      const lines = [
        `Restored ${r.checkpoint.id} "${r.checkpoint.name}" (revision ${r.checkpoint.revision}) as revision ${r.state.revision}`,
      ];
      if (r.superseded.length) lines.push(`Superseded: ${r.superseded.join(', ')}`);
      if (r.git) {
        const tree = r.git.snapshot
          ? `, its uncommitted work put back from ${r.git.snapshot.slice(0, 12)} (still uncommitted)`
          : '';
        const back =
          r.git.previousHead && r.git.previousHead !== r.git.commit
            ? ` (HEAD was ${r.git.previousHead.slice(0, 12)}: \`git reset --hard ${r.git.previousHead}\` goes back to it, discarding what the restore put back)`
            : '';
        lines.push(`Work tree reset to ${r.git.commit.slice(0, 12)}${tree}${back}`);
        if (r.git.saved)
          lines.push(
            `The changes --force discarded are kept in commit ${r.git.saved} (refs/baton/${id}/before-restore-${r.git.saved.slice(0, 12)})`,
          );
      }
      ctx.emit(
        { ...changeView(r.state), checkpoint: r.checkpoint, superseded: r.superseded, git: r.git },
        lines.join('\n'),
      );
    },
  );
}
