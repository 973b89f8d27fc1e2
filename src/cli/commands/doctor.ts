import type { Command } from 'commander';
import type { DoctorProblem, DoctorReport } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import { EXIT_CODES } from '../exit.js';
import type { CliIO, Paint } from '../io.js';
import { bind } from '../program.js';
import { progressReporter } from '../progress.js';

/** The state column of a problem. */
function stateOf(p: DoctorProblem, fix: boolean, c: Paint, width: number): string {
  const [text, color] = p.fixed
    ? ['fixed', c.green]
    : fix && p.fixable
      ? ['not fixed', c.red]
      : p.fixable
        ? ['fixable', c.yellow]
        : ['by hand', c.red];
  return color(text.padEnd(width));
}

/** The human report: problems grouped by session (the store's own first), then a summary line. */
export function renderDoctor(r: DoctorReport, c: Paint): string {
  const out: string[] = [
    `Store ${r.location}: ${r.sessions} session(s)${r.archived ? ` (${r.archived} archived)` : ''}`,
  ];
  if (!r.problems.length) {
    out.push(
      c.green(
        `No problems: every journal, snapshot and checkpoint, the registry, the active pointer, locks and temp files checked.`,
      ),
    );
    return `${out.join('\n')}\n`;
  }
  const codeW = Math.max(...r.problems.map((p) => p.code.length));
  const stateW = r.fix ? 9 : 7;
  let group: string | null | undefined;
  for (const p of r.problems) {
    if (p.sessionId !== group) {
      group = p.sessionId;
      out.push('', c.bold(group === null ? 'store' : `session ${group}`));
    }
    out.push(`  ${p.code.padEnd(codeW)}  ${stateOf(p, r.fix, c, stateW)}  ${p.message}`);
  }
  const n = r.problems.length;
  const fixed = r.problems.filter((p) => p.fixed).length;
  const fixable = r.problems.filter((p) => !p.fixed && p.fixable).length;
  const manual = n - fixed - fixable;
  out.push('');
  if (r.fix) {
    const left = n - fixed;
    out.push(
      left
        ? c.red(
            `${n} problem(s): ${fixed} fixed, ${left} left${manual ? ` (${manual} to fix by hand, see above)` : ''}.`,
          )
        : c.green(`${n} problem(s), all fixed.`),
    );
  } else {
    const when = r.readOnly ? ` once the store can be written (it cannot now: ${r.readOnly})` : '';
    const parts = [
      fixable ? `${fixable} fixable with \`baton doctor --fix\`${when}` : null,
      manual ? `${manual} to fix by hand (see above)` : null,
    ].filter(Boolean);
    out.push(c.yellow(`${n} problem(s): ${parts.join(', ')}.`));
  }
  return `${out.join('\n')}\n`;
}

/** Registers `baton doctor [--fix] [--json]`. */
export function registerDoctor(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  program
    .command('doctor')
    .description(
      'check every session and the store (journals, snapshots, registry, active pointer, leases, checkpoints, temp files, locks); --fix repairs what is safe',
    )
    .option(
      '--fix',
      'repair what is safe: cut torn tails, rebuild damaged journals, drop bad snapshots, rebuild the registry, fix the active pointer, record expired leases, remove leftovers of dead processes',
    )
    .option('--json', 'print {ok, problems: [{code, sessionId, message, fixable, fixed}]} on stdout')
    .option('--dir <path>', 'the .baton store directory (default: $BATON_DIR, else the nearest .baton upwards)')
    .option(
      '--store <url>',
      'store URL, e.g. postgres://user@host/db?schema=NAME (default: $BATON_STORE, else the file store)',
    )
    .option('--agent <name>', 'agent to attribute repair events to (default: $BATON_AGENT)')
    .action(
      bind(io, holder, async (ctx, _args, o) => {
        const progress = progressReporter(ctx, 'doctor', 'sessions');
        const report = await ctx
          .manager()
          .maintenance.doctor({ fix: o['fix'] === true, agent: ctx.agent, onProgress: (p) => progress.update(p) })
          .finally(() => progress.stop());
        if (ctx.json) {
          const problems = report.problems.map((p) => ({
            code: p.code,
            sessionId: p.sessionId,
            message: p.message,
            fixable: p.fixable,
            fixed: p.fixed,
          }));
          io.stdout(`${JSON.stringify({ ok: report.ok, problems }, null, 2)}\n`);
        } else {
          ctx.emit(null, () => renderDoctor(report, ctx.paint));
        }
        if (!report.ok) ctx.exitCode = EXIT_CODES.CORRUPT;
      }),
    );
}
