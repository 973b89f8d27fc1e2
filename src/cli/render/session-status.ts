import type { SessionStatus } from '../../manager/index.js';
import type { Paint } from '../io.js';

/** The colour of each session status, wherever one is shown: every status has its own. */
export const STATUS_COLOUR: Readonly<
  Record<SessionStatus, keyof Pick<Paint, 'green' | 'yellow' | 'magenta' | 'cyan' | 'red' | 'dim'>>
> = {
  active: 'green',
  paused: 'yellow',
  interrupted: 'magenta',
  completed: 'cyan',
  failed: 'red',
  abandoned: 'dim',
};

/** `text` (the status itself by default) in its status's colour. */
export function paintStatus(status: SessionStatus, c: Paint, text: string = status): string {
  // A status this build does not know (a tombstone written by a newer one) is shown plain.
  const colour = STATUS_COLOUR[status] as keyof Paint | undefined;
  return colour ? (c[colour] as (s: string) => string)(text) : text;
}
