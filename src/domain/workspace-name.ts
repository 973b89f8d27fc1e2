/**
 * Workspace names. On a store shared by many workers (PostgreSQL) each workspace has its own
 * active session; a workspace is named by the worker (default: its host and project folder,
 * see manager/workspace-name.ts), and two workers that give the same name share one on purpose.
 */
import { BatonError } from './errors.js';
import { hint } from './hints.js';

/** Longest workspace name accepted. */
export const MAX_WORKSPACE_LENGTH = 300;

/**
 * Returns `name` when it is a usable workspace name: 1–300 characters, no control
 * characters, not only spaces. `BAD_INPUT` otherwise, naming the fix.
 */
export function validateWorkspace(name: string): string {
  // eslint-disable-next-line no-control-regex
  if (
    typeof name !== 'string' ||
    name.trim() === '' ||
    name.length > MAX_WORKSPACE_LENGTH ||
    /[\u0000-\u001f\u007f]/.test(name)
  ) {
    throw new BatonError('BAD_INPUT', `The workspace name ${JSON.stringify(String(name).slice(0, 80))} is not valid.`, {
      hint: hint('workspace.name', { max: MAX_WORKSPACE_LENGTH }),
      details: { workspace: String(name).slice(0, 80) },
    });
  }
  return name;
}
