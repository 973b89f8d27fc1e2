import type { Command } from 'commander';
import { BatonError } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind } from '../program.js';
import { completionScript, SHELLS } from '../completion/scripts.js';
import type { IdKind, Shell } from '../completion/scripts.js';

const KINDS: readonly IdKind[] = ['session', 'phase', 'checkpoint'];

/**
 * The ids the completion scripts offer, one per line: the sessions that are not archived, the
 * phases or the checkpoints of the session acted on ($BATON_SESSION, else the active one). Nothing (and no error) without a store or
 * a session: a Tab key should never print an error into the command line.
 */
async function ids(ctx: Ctx, kind: IdKind): Promise<string[]> {
  try {
    const m = ctx.manager();
    if (kind === 'session') return (await m.list({})).map((r) => r.id);
    const id = await ctx.sessionId();
    if (kind === 'phase') return (await m.get(id)).phases.map((p) => p.id);
    return (await m.checkpoints.list(id)).map((c) => c.id);
  } catch {
    return [];
  }
}

/** Registers `baton completion bash|zsh|fish`: prints the shell's completion script (`--ids KIND`: the ids the scripts complete). */
export function registerCompletion(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .argument('[shell]', SHELLS.join(', '))
    .option('--ids <kind>', `print the ids the scripts complete, one per line: ${KINDS.join(', ')}`)
    .action(
      bind(io, holder, async (ctx, [shell], o) => {
        const kind = o['ids'] as string | undefined;
        if (kind !== undefined) {
          if (!(KINDS as readonly string[]).includes(kind))
            throw new BatonError(
              'BAD_INPUT',
              `--ids must be one of ${KINDS.join(', ')}; got ${JSON.stringify(kind)}.`,
              { hint: 'e.g. `baton completion --ids phase`' },
            );
          const list = await ids(ctx, kind as IdKind);
          io.stdout(list.map((i) => `${i}\n`).join(''));
          return;
        }
        if (!(SHELLS as readonly string[]).includes(shell ?? '')) {
          throw new BatonError('BAD_INPUT', `No completion for shell ${JSON.stringify(shell ?? '')}.`, {
            hint: `Name one of ${SHELLS.join(', ')}, e.g. \`source <(baton completion bash)\`.`,
          });
        }
        io.stdout(completionScript(program, shell as Shell));
      }),
    );
}
