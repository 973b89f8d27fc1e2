import { createRequire } from 'node:module';
import type { Command } from 'commander';
import type { Ctx } from '../context.js';
import type { CliIO } from '../io.js';

/**
 * Registers `baton hook claude|codex|gemini`, for help and for a CLI bundle started without
 * the launcher: the hook itself is its own bundle (dist/hook.cjs, see src/hooks/), which the
 * `baton` launcher runs directly so an agent's tool call never waits for the whole CLI.
 */
export function registerHook(program: Command, io: CliIO, _holder: { ctx: Ctx | null }): void {
  program
    .command('hook')
    .description(
      'receive one agent CLI hook payload on stdin and record it (run by Claude Code, Codex or Gemini CLI; see docs/hooks.md); always exits 0',
    )
    .argument('<cli>', 'claude, codex or gemini')
    .option('--dir <path>', 'the .baton store directory')
    .option('--store <url>', 'the store URL')
    .allowUnknownOption(true)
    .action(() => {
      try {
        // Bundled, this module sits beside hook.cjs, which runs the hook from process.argv.
        createRequire(import.meta.url)('./hook.cjs');
      } catch (e) {
        io.stderr(
          `baton hook: the hook bundle is not available here (${(e as Error).message.split('\n')[0]}); run the built dist/baton.cjs.\n`,
        );
      }
    });
}
