/** Picks the normaliser of a CLI. */
import { normaliseClaude } from './claude.js';
import { normaliseCodex } from './codex.js';
import { normaliseGemini } from './gemini.js';
import type { HookCli, HookEvent, Json } from './model.js';

/** Normalises one payload of `cli` into the internal model. */
export function normalise(cli: HookCli, payload: Json): HookEvent {
  return cli === 'claude'
    ? normaliseClaude(payload)
    : cli === 'codex'
      ? normaliseCodex(payload)
      : normaliseGemini(payload);
}
