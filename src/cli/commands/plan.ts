import type { Command } from 'commander';
import { changeView } from '../../manager/index.js';
import type { ChangeResult, Phase } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind, common, strict } from '../program.js';
import type { On } from '../program.js';

/** A comma-separated list of phases; '' is none. */
function phaseList(v: unknown): string[] {
  return String(v)
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

function shown(p: Phase): string {
  return `${p.id} (retries ${p.retryCount}/${p.maxRetries}${p.blockedBy.length ? `, after ${p.blockedBy.join(', ')}` : ''})`;
}

function emit(ctx: Ctx, r: ChangeResult<unknown>, phase: Phase | null, text: string): void {
  ctx.emit({ ...changeView(r.state), phase, phases: r.state.phases.map((p) => p.id) }, text);
}

/**
 * `plan add|remove|set`: the user's changes to a session's plan (an escalation's way out
 * besides a retry, a skip or ending the session), each recorded as an event in the journal.
 */
export function registerPlan(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const on: On = (cmd, action) => cmd.action(bind(io, holder, action));
  const plan = program
    .command('plan')
    .description("change the session's plan: add, remove, or set a phase's retry limit and dependencies");

  on(
    strict(
      common(
        plan
          .command('add')
          .description('add a phase (default: at the end)')
          .argument('<name>', 'the new phase')
          .option('--id <id>', 'its id (default: made from the name)')
          .option('--after <phase>', 'place it right after this phase')
          .option('--before <phase>', 'place it right before this phase')
          .option('--blocked-by <phases>', 'comma-separated phases it waits for')
          .option('--max-retries <n>', 'its retry limit (default 2)')
          .option('--reason <text>', 'why the plan changes'),
      ),
    ),
    async (ctx, [name], o) => {
      const id = await ctx.sessionId();
      const r = await ctx.manager().plan.add(
        id,
        {
          name: name ?? '',
          id: (o['id'] as string | undefined) ?? null,
          after: (o['after'] as string | undefined) ?? null,
          before: (o['before'] as string | undefined) ?? null,
          blockedBy: o['blockedBy'] === undefined ? [] : phaseList(o['blockedBy']),
          maxRetries: o['maxRetries'],
          reason: (o['reason'] as string | undefined) ?? null,
        },
        ctx.change(),
      );
      const p = r.state.phases.find((x) => x.id === r.result)!;
      emit(ctx, r, p, `Added phase ${shown(p)}; the plan is ${r.state.phases.map((x) => x.id).join(', ')}`);
    },
  );

  on(
    strict(
      common(
        plan
          .command('remove')
          .description('remove a pending phase that nothing depends on')
          .argument('<phase>', 'phase id or name')
          .option('--reason <text>', 'why the plan changes'),
      ),
    ),
    async (ctx, [ref], o) => {
      const id = await ctx.sessionId();
      const r = await ctx
        .manager()
        .plan.remove(id, ref ?? '', { ...ctx.change(), reason: (o['reason'] as string | undefined) ?? null });
      emit(
        ctx,
        r,
        null,
        `Removed phase ${ref ?? ''}; the plan is ${r.state.phases.map((x) => x.id).join(', ') || '(no phases)'}`,
      );
    },
  );

  on(
    strict(
      common(
        plan
          .command('set')
          .description("change a phase's retry limit and/or dependencies")
          .argument('<phase>', 'phase id or name')
          .option('--max-retries <n>', 'its retry limit (0 to 100)')
          .option('--blocked-by <phases>', "comma-separated phases it waits for, all of them ('' for none)")
          .option('--reason <text>', 'why the plan changes'),
      ),
    ),
    async (ctx, [ref], o) => {
      const id = await ctx.sessionId();
      const r = await ctx.manager().plan.set(
        id,
        ref ?? '',
        {
          maxRetries: o['maxRetries'],
          ...(o['blockedBy'] !== undefined ? { blockedBy: phaseList(o['blockedBy']) } : {}),
          reason: (o['reason'] as string | undefined) ?? null,
        },
        ctx.change(),
      );
      const changed = r.events[0]?.type === 'phase.updated' ? r.events[0].data.phaseId : ref;
      const p = r.state.phases.find((x) => x.id === changed) ?? null;
      emit(ctx, r, p, `Changed phase ${p ? shown(p) : (ref ?? '')}`);
    },
  );
}
