import type { Command } from 'commander';
import { BatonError } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';
import { bind } from '../program.js';
import { completionScript, SHELLS } from '../completion/scripts.js';
import type { Shell } from '../completion/scripts.js';

/** Registers `baton completion bash|zsh|fish`: prints the shell's completion script. */
export function registerCompletion(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .argument('<shell>', SHELLS.join(', '))
    .action(
    bind(io, holder, async (_ctx, [shell]) => {
      if (!(SHELLS as readonly string[]).includes(shell ?? '')) {
        throw new BatonError('BAD_INPUT', `No completion for shell ${JSON.stringify(shell ?? '')}.`, { hint: `Name one of ${SHELLS.join(', ')}, e.g. \`source <(baton completion bash)\`.` });
      }
      io.stdout(completionScript(program, shell as Shell));
    }),
  );
}
