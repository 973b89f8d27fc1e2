import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import {
  BatonError,
  Bundles,
  bundleHandoff,
  changeView,
  Formats,
  importIsIncomplete,
  MIRROR_ERROR_KEY,
  mirrorOf,
} from '../../manager/index.js';
import type { ForeignSession } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import { EXIT_CODES } from '../exit.js';
import { withCliHint } from '../hint-words.js';
import type { CliIO } from '../io.js';
import { bind, common } from '../program.js';
import { progressReporter } from '../progress.js';
import type { Action } from '../program.js';
import {
  allProblems,
  renderBundleExport,
  renderBundleImport,
  renderExport,
  renderImport,
  renderInspect,
  renderMirror,
} from '../render/formats.js';

/** Which of the options `keys` were given (as `import` names them on the command line). */
function bundleOnlyGiven(o: Record<string, unknown>, keys: string[]): string[] {
  return keys.filter((k) => o[k] !== undefined);
}

/** A foreign session without its parsed source documents (verbose; `--documents` keeps them). */
function lean(
  s: ForeignSession,
  documents: boolean,
): Omit<ForeignSession, 'documents'> & { documents?: Record<string, unknown> } {
  if (documents) return s;
  const { documents: _d, ...rest } = s;
  return rest;
}

/** Registers inspect, import, export and mirror: the foreign session layouts (docs/formats.md). */
export function registerFormats(program: Command, io: CliIO, holder: { ctx: Ctx | null }): void {
  const on = (cmd: Command, action: Action): Command => cmd.action(bind(io, holder, action));
  const formatHelp = 'layout: maestro, go-team, bmit, bmad, ccw, or auto (detected)';

  on(
    program
      .command('inspect')
      .description(
        "read the sessions of a foreign toolkit's folder without changing anything, and report every fact and problem",
      )
      .argument('<path>', "the folder holding the toolkit's session files")
      .option('--format <format>', formatHelp, 'auto')
      .option('--documents', 'with --json: include the parsed source documents')
      .option('--json', 'print machine-readable JSON on stdout'),
    async (ctx, [dir], o) => {
      const r = await Formats.inspect(dir ?? '', String(o['format']), { cwd: io.cwd, now: io.now });
      const docs = o['documents'] === true;
      ctx.emit({ ...r, sessions: r.sessions.map((s) => lean(s, docs)) }, () => renderInspect(r, ctx.paint));
      // Readable but damaged: a distinct status so scripts and CI can tell (docs/cli.md).
      if (allProblems(r).some((p) => p.severity === 'error')) ctx.exitCode = EXIT_CODES.CORRUPT;
    },
  );

  registerImport(program, io, on, formatHelp);
  registerExport(program, io, on);

  on(
    common(
      program
        .command('mirror')
        .description(
          "keep a session's files in a foreign layout rewritten after every change (no argument: show the mirror)",
        )
        .argument('[format]', 'layout: maestro, go-team, bmit, bmad, ccw')
        .option('--out <dir>', 'folder the toolkit reads its files from')
        .option('--off', 'stop mirroring')
        .option('--force', 'overwrite mirrored files even where someone else changed them since baton wrote them'),
    ),
    async (ctx, [format], o) => {
      const m = ctx.manager();
      const id = await ctx.sessionId();
      const off = o['off'] === true;
      if (off && format !== undefined)
        throw new BatonError('BAD_INPUT', 'Give either a format or --off, not both.', {
          hint: 'Use `baton mirror FORMAT --out DIR` or `baton mirror --off`.',
        });
      if (format === undefined && !off) {
        if (o['out'] !== undefined)
          throw new BatonError('BAD_INPUT', '--out needs a format.', { hint: 'Use `baton mirror FORMAT --out DIR`.' });
        const s = await m.get(id);
        const mirror = mirrorOf(s);
        const error = withCliHint(s.metadata[MIRROR_ERROR_KEY] ?? null);
        ctx.emit({ id, mirror, error }, () => renderMirror(id, mirror, error));
        return;
      }
      if (!off && o['out'] === undefined)
        throw new BatonError('BAD_INPUT', `Mirroring as ${format} needs --out DIR.`, {
          hint: `Use \`baton mirror ${format} --out DIR\`.`,
        });
      const r = await m.formats.setMirror(id, off ? null : { format: format!, out: String(o['out']) }, {
        cwd: io.cwd,
        now: io.now,
        agent: ctx.agent,
        force: o['force'] === true,
      });
      ctx.confirm(
        { ...changeView(r.state), mirror: r.mirror },
        r.mirror ? `Mirroring ${id} as ${r.mirror.format} in ${r.mirror.out}` : `Stopped mirroring ${id}`,
      );
    },
  );
}

type On = (cmd: Command, action: Action) => Command;

/** `import`: a session bundle (a file) or a toolkit's folder. */
function registerImport(program: Command, io: CliIO, on: On, formatHelp: string): void {
  on(
    common(
      program
        .command('import')
        .description(
          "restore a session bundle (a file from `export --bundle`), verified; or turn every session of a foreign toolkit's folder into a baton session (again: bring it forward); the folder is not changed",
        )
        .argument('<path>', "a bundle file, or the folder holding the toolkit's session files")
        .option('--format <format>', formatHelp, 'auto')
        .option(
          '--id-prefix <prefix>',
          'put PREFIX before every baton id (to import next to sessions with the same ids)',
        )
        .option(
          '--moved',
          'the folder was imported before from another place: bring those sessions forward instead of refusing them',
        )
        .option('--as <id>', 'bundle: give the session this id here (its id is taken)')
        .option('--replace', 'bundle: delete the existing session of that id first (its history is lost)')
        .option('--switch', 'bundle: make it the active session (pausing the active one)')
        .option(
          '--handoff',
          'bundle: print the handoff inside (verified; what the sender left, what to do) and import nothing',
        ),
    ),
    async (ctx, [dir], o) => {
      // Refused before the store is opened (and created where there is none): a wrong path, a
      // damaged or newer bundle leave no trace.
      if (!fs.existsSync(path.resolve(io.cwd, dir ?? '')))
        throw new BatonError('NOT_FOUND', `There is no file or folder at ${path.resolve(io.cwd, dir ?? '')}.`, {
          hint: "Give the bundle file `baton export --bundle` wrote, or the folder holding a toolkit's session files.",
        });
      if (Bundles.isBundlePath(dir ?? '', io.cwd)) {
        const folderOnly = ['idPrefix', 'moved']
          .filter((k) => o[k] !== undefined)
          .concat(o['format'] !== 'auto' ? ['format'] : []);
        if (folderOnly.length)
          throw new BatonError(
            'BAD_INPUT',
            `${dir} is a file (a session bundle); --${folderOnly.map((k) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)).join(', --')} only apply to a toolkit's folder.`,
            { hint: 'Leave them out to import the bundle (use --as to give it another id).' },
          );
        const handoff = bundleHandoff(dir!, io.cwd);
        if (o['handoff'] === true) {
          if (bundleOnlyGiven(o, ['as', 'replace', 'switch']).length)
            throw new BatonError(
              'BAD_INPUT',
              '--handoff only reads the bundle; --as, --replace and --switch import it.',
              {
                hint: 'Read it with --handoff first, then import without it.',
              },
            );
          ctx.emit({ file: path.resolve(io.cwd, dir!), handoff }, () => handoff.replace(/\n*$/, '\n'));
          return;
        }
        const r = await ctx.manager(true).bundles.import(dir!, {
          cwd: io.cwd,
          now: io.now,
          agent: ctx.agent,
          replace: o['replace'] === true,
          switch: o['switch'] === true,
          ...(o['as'] !== undefined ? { as: String(o['as']) } : {}),
        });
        ctx.emit(r, () => renderBundleImport(r));
        return;
      }
      const bundleOnly = bundleOnlyGiven(o, ['as', 'replace', 'switch', 'handoff']);
      if (bundleOnly.length)
        throw new BatonError(
          'BAD_INPUT',
          `--${bundleOnly.join(', --')} only apply to a session bundle, and ${dir} is not a file.`,
          {
            hint: "Give the bundle file `baton export --bundle` wrote, or leave them out to import a toolkit's folder.",
          },
        );
      const progress = progressReporter(ctx, 'import', 'sessions');
      const imported = await ctx
        .manager(true)
        .formats.import(dir ?? '', String(o['format']), {
          cwd: io.cwd,
          now: io.now,
          agent: ctx.agent,
          moved: o['moved'] === true,
          onProgress: (p) => progress.update(p),
          ...(o['idPrefix'] !== undefined ? { idPrefix: String(o['idPrefix']) } : {}),
        })
        .finally(() => progress.stop());
      // A session that failed to import carries its error's hint as an action: word it here.
      const r = {
        ...imported,
        problems: imported.problems.map(withCliHint),
        sessions: imported.sessions.map((s) => ({ ...s, problems: s.problems.map(withCliHint) })),
      };
      ctx.emit(r, () => renderImport(r, ctx.paint));
      // As inspect: a script must not take a damaged, empty or half-done import for a good one.
      if (await importIsIncomplete(r)) ctx.exitCode = EXIT_CODES.CORRUPT;
    },
  );
}

/** `export`: a session bundle (`--bundle`) or a toolkit's layout. */
function registerExport(program: Command, io: CliIO, on: On): void {
  on(
    common(
      program
        .command('export')
        .description(
          "write a session as one bundle file another machine or person imports (--bundle), or in a foreign toolkit's layout, by its own write rules, so the toolkit can go on from there",
        )
        .option(
          '--bundle <file>',
          'write the session (journal, checkpoints, step results, handoff) to FILE, paths relative to the repository root, checksummed',
        )
        .option('--format <format>', 'layout: maestro, go-team, bmit, bmad, ccw (without --bundle: required)')
        .option(
          '--out <dir>',
          'folder to write into (created when missing; other sessions in it are kept; without --bundle: required)',
        )
        .option('--all', 'every live session (not archived), not only one')
        .option(
          '--force',
          "write a finished session into its toolkit's archive although the toolkit requires a step first (Maestro's reconciliation, its code review)",
        ),
    ),
    async (ctx, _a, o) => {
      const m = ctx.manager();
      if (o['bundle'] !== undefined) {
        const other = ['format', 'out', 'all'].filter((k) => o[k] !== undefined);
        if (other.length)
          throw new BatonError(
            'BAD_INPUT',
            `--bundle writes one session to one file; --${other.join(', --')} do not apply.`,
            { hint: "Give --bundle FILE [--session ID] alone, or --format and --out for a toolkit's layout." },
          );
        const r = await m.bundles.export(await ctx.sessionId(), String(o['bundle']), { cwd: io.cwd, now: io.now });
        for (const cp of r.skippedCheckpoints)
          ctx.warn(`CORRUPT: checkpoint ${cp} of ${r.id} is damaged and was left out of the bundle.`);
        for (const step of r.skippedStepResults)
          ctx.warn(
            `CORRUPT: the result of step ${step} of ${r.id} is missing or damaged in the store and was left out of the bundle; running that step reports CORRUPT there, as it does here.`,
          );
        ctx.emit(r, () => renderBundleExport(r));
        return;
      }
      for (const k of ['format', 'out']) {
        if (o[k] === undefined)
          throw new BatonError('BAD_INPUT', `export needs --${k} (or --bundle FILE).`, {
            hint: 'Use `baton export --format LAYOUT --out DIR`, or `baton export --bundle FILE` to carry the session to another machine.',
          });
      }
      if (o['all'] === true) {
        if (ctx.opts.session !== undefined)
          throw new BatonError('BAD_INPUT', 'Give either --all or --session, not both.', { hint: 'Keep one of them.' });
        const progress = progressReporter(ctx, 'export', 'sessions');
        const all = await m.formats
          .exportAll(String(o['format']), String(o['out']), {
            cwd: io.cwd,
            now: io.now,
            onProgress: (p) => progress.update(p),
          })
          .finally(() => progress.stop());
        for (const p of all.flatMap((r) => r.problems))
          ctx.warn(`${p.code}: ${p.message}${p.hint ? `\n  hint: ${p.hint}` : ''}`);
        ctx.emit(all, () => (all.length ? all.map((r) => renderExport(r)).join('') : 'No live session to export.\n'));
        return;
      }
      const id = await ctx.sessionId();
      const r = await m.formats.export(id, String(o['format']), String(o['out']), {
        cwd: io.cwd,
        now: io.now,
        force: o['force'] === true,
      });
      for (const p of r.problems) ctx.warn(`${p.code}: ${p.message}${p.hint ? `\n  hint: ${p.hint}` : ''}`);
      ctx.emit(r, () => renderExport(r));
    },
  );
}
