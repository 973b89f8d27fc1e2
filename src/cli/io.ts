/** What the CLI reads from and writes to the outside world; injected so tests can run it in-process. */
export interface CliIO {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (s: string) => void;
  /** Writes UTF-8 bytes to stdout as they are (`list --json` prints a kept view so, undecoded); optional: without it, text goes through {@link stdout}. */
  stdoutBytes?: (b: Uint8Array) => void;
  stderr: (s: string) => void;
  /** stdout is a terminal. */
  isTTY: boolean;
  /** stderr is a terminal (progress lines update in place only there); default: same as isTTY. */
  stderrIsTTY?: boolean;
  /** Width of the terminal in columns, when stdout (or stderr) is one; unknown otherwise. */
  columns?: number;
  now: () => Date;
}

/**
 * How human output is drawn on this terminal: colour helpers that do nothing when colour is
 * off, whether the locale can show non-ASCII symbols, and the width to fit (null: no limit,
 * e.g. a pipe).
 */
export interface Paint {
  green: (s: string) => string;
  red: (s: string) => string;
  yellow: (s: string) => string;
  blue: (s: string) => string;
  magenta: (s: string) => string;
  cyan: (s: string) => string;
  dim: (s: string) => string;
  bold: (s: string) => string;
  /** The locale can show ✓ ○ █ …; when false, renderers use ASCII. */
  unicode: boolean;
  /** Columns to fit, or null when output is not a terminal of known width. */
  width: number | null;
}

/** Builds the drawing helpers (colour off by default, Unicode on, no width limit). */
export function paint(enabled: boolean, o: { unicode?: boolean; width?: number | null } = {}): Paint {
  const wrap = (open: number, close: number) => (s: string) => (enabled ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  return {
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    blue: wrap(34, 39),
    magenta: wrap(35, 39),
    cyan: wrap(36, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    unicode: o.unicode ?? true,
    width: o.width ?? null,
  };
}
