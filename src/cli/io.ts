/** What the CLI reads from and writes to the outside world; injected so tests can run it in-process. */
export interface CliIO {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTTY: boolean;
  now: () => Date;
}

/** Colour helpers that do nothing when colour is off (not a TTY, NO_COLOR set, or --json). */
export interface Paint {
  green: (s: string) => string;
  red: (s: string) => string;
  yellow: (s: string) => string;
  dim: (s: string) => string;
  bold: (s: string) => string;
}

/** Builds the colour helpers. */
export function paint(enabled: boolean): Paint {
  const wrap = (open: number, close: number) => (s: string) => (enabled ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  return { green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}
