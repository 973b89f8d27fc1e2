import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { BatonError, changeView, renderResumePlan } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import { cliResumePlan, cliWords } from '../hint-words.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';

/** Registers `resume` (plan, or --apply) and `handoff`. */
export function registerResume(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  common(
    program
      .command('resume')
      .description('show how to resume a session (changes nothing); --apply resumes it')
      .argument('[id]', 'session (default: --session, $BATON_SESSION, else the active one)')
      .option('--apply', 'make the session active, applying the recommended recovery option')
      .option('--from <option>', 'recovery option to apply: live, fresh or checkpoint:<id> (implies --apply)')
      .option('--git', 'with a checkpoint: also reset the git work tree to its commit')
      .option('--force', 'reset a dirty work tree; take over a lease another run still holds')
      .option(
        '--end-orphans',
        'end the command of a dead baton run still running here (SIGTERM, then SIGKILL) before taking over',
      ),
  ).action(
    bind(io, holder, async (ctx, [id], o) => {
      const sid = await ctx.sessionId(id);
      const m = ctx.manager();
      if (o['apply'] !== true && o['from'] === undefined) {
        const { plan } = await m.recovery.plan(sid);
        ctx.emit(cliResumePlan(plan), () => renderResumePlan(plan, cliWords));
        return;
      }
      const r = await m.recovery.apply(sid, {
        from: (o['from'] as string | undefined) ?? null,
        git: o['git'] === true,
        force: o['force'] === true,
        endOrphans: o['endOrphans'] === true,
        agent: ctx.agent,
      });
      ctx.confirm(
        {
          ...changeView(r.state),
          appliedFrom: r.from,
          changed: r.changed,
          plan: cliResumePlan(r.plan),
        },
        r.changed
          ? `Resumed ${sid} from ${r.from}; it is ${r.state.status}.`
          : `Session ${sid} is already active: nothing to resume; go on working in it.`,
      );
    }),
  );

  common(
    program
      .command('handoff')
      .description('a Markdown briefing for the next agent or person, built from the session')
      .option('--write <file>', 'also write it to this file'),
  ).action(
    bind(io, holder, async (ctx, _a, o) => {
      const sid = await ctx.sessionId();
      const { markdown } = await ctx.manager().recovery.handoff(sid);
      const file = o['write'] as string | undefined;
      if (file !== undefined) {
        if (file.trim() === '')
          throw new BatonError('BAD_INPUT', '--write needs a file name.', { hint: 'e.g. --write HANDOFF.md' });
        const abs = path.resolve(io.cwd, file);
        try {
          fs.writeFileSync(abs, markdown);
        } catch (e) {
          throw new BatonError('BAD_INPUT', `Cannot write ${file}: ${(e as Error).message}.`, {
            hint: 'Check the path and permissions.',
          });
        }
      }
      ctx.emit(
        { id: sid, markdown, ...(file !== undefined ? { written: path.resolve(io.cwd, file) } : {}) },
        markdown,
        { document: true },
      );
    }),
  );
}
