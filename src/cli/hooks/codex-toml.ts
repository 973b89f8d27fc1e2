import { createRequire } from 'node:module';
import { BatonError } from '../../manager/index.js';
import { parseHookCommand } from './command.js';
import type { FoundHook } from './merge.js';

/** What Codex's config.toml holds of hooks: the events with handlers, and baton's among them. */
export interface TomlHooks {
  events: string[];
  baton: FoundHook[];
}

/**
 * Reads the hook handlers of a Codex `config.toml` (`[hooks]`, apart from `hooks.state`,
 * where Codex keeps which hooks the user trusted). smol-toml is loaded only here, by the
 * `hooks` commands.
 */
export function tomlHooks(text: string, file: string): TomlHooks {
  const { parse, TomlError } = createRequire(import.meta.url)('smol-toml') as typeof import('smol-toml');
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    const line = e instanceof TomlError ? e.line : undefined;
    throw new BatonError(
      'BAD_INPUT',
      `${file} is not valid TOML${line ? ` (line ${line})` : ''}: ${(e as Error).message.split('\n')[0]}. baton cannot tell whether it holds hooks, and left every file untouched.`,
      {
        hint: `Fix ${file}${line ? ` at line ${line}` : ''} (Codex cannot read it either), then run the command again.`,
        details: { file, ...(line ? { line } : {}) },
      },
    );
  }
  const hooks = doc['hooks'];
  const out: TomlHooks = { events: [], baton: [] };
  if (!hooks || typeof hooks !== 'object') return out;
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (event === 'state' || !Array.isArray(groups)) continue;
    out.events.push(event);
    for (const g of groups as Array<{ hooks?: Array<{ command?: unknown }> }>) {
      for (const h of Array.isArray(g?.hooks) ? g.hooks : []) {
        if (typeof h?.command === 'string' && parseHookCommand(h.command))
          out.baton.push({ event, command: h.command });
      }
    }
  }
  return out;
}
