import type { Command } from 'commander';
import { BatonError, changeView } from '../../manager/index.js';
import type { ChangeResult, FileAction, PhaseAction } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common, strict } from '../program.js';
import type { On } from '../program.js';
import { registerBudget } from './budget.js';
import { registerPricing, registerTokens } from './tokens.js';

function done(ctx: Ctx, r: ChangeResult<unknown>, text: string, extra: Record<string, unknown> = {}): void {
  ctx.emit({ ...changeView(r.state), ...extra }, text);
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Registers the phase, sub-step and record-keeping commands: phase, substep, file, error, tokens … context. */
export function registerRecords(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const on: On = (cmd, action) => cmd.action(bind(io, holder, action));
  for (const register of [
    registerPhase,
    registerWorkRecords,
    registerErrors,
    registerTokens,
    registerBudget,
    registerPricing,
    registerDecision,
    registerFinding,
    registerNote,
    registerMilestone,
    registerArtifact,
    registerContext,
  ])
    register(program, on);
}

/** `phase start|complete|fail|skip|retry`: the manager's verbs. */
function registerPhase(program: Command, on: On): void {
  const phase = program
    .command('phase')
    .description('move a phase through its states: start, complete, fail, skip, retry; claim one for a run');
  // The command is the manager's verb: one word per phase action on every surface.
  const verbs: Array<[PhaseAction, string, string]> = [
    ['start', 'start a pending phase (or retry a failed one)', 'Started'],
    ['complete', 'mark an in-progress phase completed', 'Completed'],
    ['fail', 'mark an in-progress phase failed', 'Failed'],
    [
      'skip',
      "skip a pending phase, or a failed one on the user's decision (recorded as such; give --reason)",
      'Skipped',
    ],
    ['retry', 'retry a failed phase (counted against its retry limit)', 'Retrying'],
  ];
  for (const [action, description, word] of verbs) {
    on(
      strict(
        common(
          phase
            .command(action)
            .description(description)
            .argument('<phase>', 'phase id or name')
            .option('--force', 'override BLOCKED / RETRIES_EXHAUSTED')
            .option('--reason <text>', 'why (fail, skip)'),
        ),
      ),
      async (ctx, [ref], o) => {
        const id = await ctx.sessionId();
        const r = await ctx.manager().phase(id, ref ?? '', action, {
          ...ctx.change(),
          force: o['force'] === true,
          reason: (o['reason'] as string | undefined) ?? null,
        });
        const p = r.state.phases.find((x) => x.id === ref || x.name === ref)!;
        const e = r.events[0];
        const tail =
          action === 'retry' || e?.type === 'phase.retried'
            ? ` (retry ${p.retryCount}/${p.maxRetries})`
            : e?.type === 'phase.skipped' && e.data.from === 'failed'
              ? " (it had failed: the user's decision, recorded)"
              : '';
        done(ctx, r, `${word} phase ${p.id}${tail}`, { phase: p });
      },
    );
  }
  registerPhaseClaim(phase, on);
}

/**
 * `phase claim [phase]`: for parallel batches, the first run to claim a startable phase gets
 * it (started for it), the others are refused with LOCKED naming the free ones. Inside a run
 * (BATON_RUN, set by `baton run`) the claim is that run's; outside one it is made for a run of
 * the process that ran this command (the shell or the agent), which lives while it does.
 */
function registerPhaseClaim(phase: Command, on: On): void {
  const cmd = phase
    .command('claim')
    .description(
      'take a phase for this run: the named one, or the first one free (pending with its blockers done, or left by a dead run)',
    )
    .argument('[phase]', 'phase id or name (default: the first free one)');
  on(strict(common(cmd)), async (ctx, [ref]) => {
    const m = ctx.manager();
    const id = await ctx.sessionId();
    const run = ctx.run;
    if (run) {
      const r = await m.runs.claimPhase(id, run, ref ?? null, ctx.change());
      done(ctx, r, `Claimed phase ${r.result} for run ${run}`, { phase: r.result, run, started: false });
      return;
    }
    const r = await m.runs.claimForProcess(id, ref ?? null, {
      pid: process.ppid,
      agent: ctx.agent,
      command: ['baton', 'phase', 'claim', ...(ref ? [ref] : [])],
    });
    const { phase: p, runId, started } = r.result;
    const note = started
      ? `; run ${runId} lives while process ${process.ppid} (which ran this command) does: export BATON_RUN=${runId} so your records go to its phase`
      : '';
    done(ctx, r, `Claimed phase ${p} for run ${runId}${note}`, { phase: p, run: runId, started });
  });
}

/** `substep` and `file created|modified|deleted`: where the work is and what it touched. */
function registerWorkRecords(program: Command, on: On): void {
  on(
    strict(
      common(
        program
          .command('substep')
          .description('record reaching a sub-step of an in-progress phase (the resume point)')
          .argument('<phase>')
          .argument('<name>'),
      ),
    ),
    async (ctx, [ref, name]) => {
      const r = await ctx.manager().substep(await ctx.sessionId(), ref ?? '', name ?? '', ctx.change());
      done(ctx, r, `Phase ${ref}: reached ${name}`);
    },
  );

  const file = program.command('file').description('record files created, modified or deleted (hashed now)');
  for (const action of ['created', 'modified', 'deleted'] as FileAction[]) {
    on(
      strict(
        common(
          file
            .command(action)
            .description(`record ${action} files`)
            .argument('<paths...>')
            .option('--phase <phase>', 'phase (default: the one in progress)'),
        ),
      ),
      async (ctx, paths, o) => {
        const r = await ctx
          .manager()
          .files(await ctx.sessionId(), action, paths, (o['phase'] as string | undefined) ?? null, ctx.change());
        const recs = r.events.map((e) => e.data);
        done(ctx, r, `Recorded ${paths.length} ${action} file(s)`, { files: recs });
      },
    );
  }
}

/** `error add|resolve`. */
function registerErrors(program: Command, on: On): void {
  const error = program.command('error').description('add and resolve errors');
  on(
    strict(
      common(
        error
          .command('add')
          .description('add an error against a phase; prints its id')
          .option(
            '--phase <phase>',
            'phase the error belongs to (default: the one in progress; in a `baton run`, its phase)',
          )
          .requiredOption('--type <type>', 'validation, timeout, file_conflict, runtime, dependency, quota, …')
          .requiredOption('--message <text>', 'what went wrong'),
      ),
    ),
    async (ctx, _a, o) => {
      const m = ctx.manager();
      const id = await ctx.sessionId();
      const phase = (o['phase'] as string | undefined) ?? m.runs.defaultPhase(await m.get(id), ctx.run, ctx.agent);
      if (phase === null)
        throw new BatonError('BAD_INPUT', 'No phase is in progress to record this error against.', {
          hint: 'Name its phase: --phase <phase>.',
        });
      const r = await m.error(
        id,
        { phase, type: String(o['type']), message: String(o['message']), agent: ctx.agent },
        ctx.change(),
      );
      done(ctx, r, r.result, { errorId: r.result });
    },
  );
  on(
    strict(
      common(
        error
          .command('resolve')
          .description('mark an error resolved')
          .argument('<error-id>')
          .requiredOption('--resolution <text>', 'how it was resolved'),
      ),
    ),
    async (ctx, [errorId], o) => {
      const r = await ctx
        .manager()
        .resolveError(await ctx.sessionId(), errorId ?? '', String(o['resolution']), ctx.change());
      done(ctx, r, `Resolved ${errorId}`);
    },
  );
}

/** `decision add`. */
function registerDecision(program: Command, on: On): void {
  on(
    strict(
      common(
        program
          .command('decision')
          .description('add decisions')
          .command('add')
          .description('add a decision with its rationale')
          .requiredOption('--title <text>', 'what was decided about')
          .requiredOption('--choice <text>', 'what was chosen')
          .option('--rationale <text>', 'why')
          .option('--alternative <text>', 'an alternative considered (repeatable)', collect, [])
          .option('--phase <phase>', 'phase the decision belongs to'),
      ),
    ),
    async (ctx, _a, o) => {
      const r = await ctx.manager().decision(
        await ctx.sessionId(),
        {
          title: String(o['title']),
          choice: String(o['choice']),
          rationale: (o['rationale'] as string | undefined) ?? null,
          alternatives: o['alternative'] as string[],
          phase: (o['phase'] as string | undefined) ?? null,
        },
        ctx.change(),
      );
      done(ctx, r, r.result, { decisionId: r.result });
    },
  );
}

/** `finding add|remove`. */
function registerFinding(program: Command, on: On): void {
  const finding = program.command('finding').description('add or remove open findings');
  on(
    strict(
      common(
        finding
          .command('add')
          .argument('<text>')
          .option('--severity <s>', 'e.g. low, medium, high')
          .option('--phase <phase>'),
      ),
    ),
    async (ctx, [text], o) => {
      const r = await ctx.manager().finding(
        await ctx.sessionId(),
        {
          text: text ?? '',
          severity: (o['severity'] as string | undefined) ?? null,
          phase: (o['phase'] as string | undefined) ?? null,
        },
        ctx.change(),
      );
      done(ctx, r, r.result, { findingId: r.result });
    },
  );
  on(strict(common(finding.command('remove').argument('<finding-id>'))), async (ctx, [fid]) => {
    const r = await ctx.manager().removeFinding(await ctx.sessionId(), fid ?? '', ctx.change());
    done(ctx, r, `Removed ${fid}`);
  });
}

/** `note add`. */
function registerNote(program: Command, on: On): void {
  on(
    strict(
      common(
        program.command('note').description('add notes').command('add').argument('<text>').option('--phase <phase>'),
      ),
    ),
    async (ctx, [text], o) => {
      const r = await ctx
        .manager()
        .note(
          await ctx.sessionId(),
          { text: text ?? '', phase: (o['phase'] as string | undefined) ?? null },
          ctx.change(),
        );
      done(ctx, r, r.result, { noteId: r.result });
    },
  );
}

/** `milestone add|done`. */
function registerMilestone(program: Command, on: On): void {
  const milestone = program.command('milestone').description('add milestones and mark them done');
  on(
    strict(common(milestone.command('add').argument('<title>').option('--target <date>', 'target date (ISO-8601)'))),
    async (ctx, [title], o) => {
      const r = await ctx
        .manager()
        .milestone(
          await ctx.sessionId(),
          { title: title ?? '', targetDate: (o['target'] as string | undefined) ?? null },
          ctx.change(),
        );
      done(ctx, r, r.result, { milestoneId: r.result });
    },
  );
  on(strict(common(milestone.command('done').argument('<milestone>', 'milestone id or title'))), async (ctx, [ref]) => {
    const r = await ctx.manager().milestoneDone(await ctx.sessionId(), ref ?? '', ctx.change());
    done(ctx, r, `Milestone ${ref} done`);
  });
}

/** `artifact add`. */
function registerArtifact(program: Command, on: On): void {
  on(
    strict(
      common(
        program
          .command('artifact')
          .description('add artifacts')
          .command('add')
          .argument('<path>')
          .option('--kind <kind>', 'e.g. design-doc, report, build')
          .option('--description <text>')
          .option('--phase <phase>'),
      ),
    ),
    async (ctx, [p], o) => {
      const r = await ctx.manager().artifact(
        await ctx.sessionId(),
        {
          path: p ?? '',
          kind: (o['kind'] as string | undefined) ?? null,
          description: (o['description'] as string | undefined) ?? null,
          phase: (o['phase'] as string | undefined) ?? null,
        },
        ctx.change(),
      );
      done(ctx, r, r.result, { artifactId: r.result });
    },
  );
}

/** `context set`. */
function registerContext(program: Command, on: On): void {
  on(
    strict(
      common(
        program
          .command('context')
          .description('set the context summary for the next agent')
          .command('set')
          .argument('<summary>'),
      ),
    ),
    async (ctx, [summary]) => {
      const r = await ctx.manager().context(await ctx.sessionId(), summary ?? '', ctx.change());
      done(ctx, r, 'Context summary updated');
    },
  );
}
