/**
 * Tables for people, as gh and docker print them: a header on every table, columns as wide as
 * their widest cell (in display columns: CJK and emoji count two). On a terminal too narrow a
 * row is never wrapped: the free-text column (a title, a message) gives way first, cut at a
 * word boundary with an ellipsis; then the id columns, cut in their middle so the end that
 * tells ids apart stays (`2026-11…mig-a3f`). In a pipe nothing is cut.
 */
import type { Paint } from '../io.js';
import { ellipsis, truncate, visibleWidth } from '../terminal.js';
import { truncateMiddle } from '../width.js';

/** A column: its header, alignment, and whether it is the free text that gives way to fit. */
export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** The column cut to fit the terminal (one per table, usually the last), at a word boundary. */
  flex?: boolean;
  /** A column cut too (an id), in its middle, once the free text is down to its narrowest and the row still does not fit. */
  shrink?: boolean;
}

/** The narrowest the free-text column is cut to before the ids give way. */
const MIN_FLEX = 12;
/** The narrowest an id column is cut to; below it the free text gives way again. */
const MIN_ID = 12;
/** The free text at its very narrowest: a few characters and the ellipsis. */
const LAST_FLEX = 4;

function pad(s: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - visibleWidth(s)));
  return align === 'right' ? `${fill}${s}` : `${s}${fill}`;
}

/**
 * The widths that make the table fit `limit` columns: the free text down to MIN_FLEX, then the
 * ids down to MIN_ID, then the free text down to LAST_FLEX. Whatever still overflows is cut
 * off the end of each line by the caller.
 */
function fitWidths(columns: readonly Column[], natural: readonly number[], limit: number): number[] {
  const widths = [...natural];
  const over = (): number => widths.reduce((n, w) => n + w, 0) + 2 * (columns.length - 1) - limit;
  const give = (i: number, floor: number): void => {
    if (over() > 0) widths[i] = Math.max(Math.min(floor, widths[i]!), widths[i]! - over());
  };
  const flex = columns.findIndex((col) => col.flex);
  if (flex >= 0) give(flex, MIN_FLEX);
  columns.forEach((col, i) => col.shrink && give(i, MIN_ID));
  if (flex >= 0) give(flex, LAST_FLEX);
  return widths;
}

/**
 * Ids cut to `width` so that no two cut ids read the same: the share kept from the start is
 * moved until they differ, and the column is widened when no share does.
 */
function cutIds(
  cells: readonly string[],
  width: number,
  natural: number,
  mark: string,
): { cells: string[]; width: number } {
  for (let w = width; w < natural; w++) {
    for (const head of [0.4, 0.3, 0.5, 0.2, 0.6, 0.1, 0.7]) {
      const cut = cells.map((c) => truncateMiddle(c, w, mark, head));
      if (new Set(cut).size === new Set(cells).size) return { cells: cut, width: w };
    }
  }
  return { cells: [...cells], width: natural };
}

/** The table as lines: a dimmed header, then the rows, one line each, columns two spaces apart. */
export function renderTable(columns: readonly Column[], rows: readonly string[][], c: Paint): string[] {
  const natural = columns.map((col, i) =>
    Math.max(visibleWidth(col.header), ...rows.map((r) => visibleWidth(r[i] ?? ''))),
  );
  const mark = ellipsis(c);
  let body = rows.map((r) => [...r]);
  let widths = natural;
  if (c.width !== null) {
    widths = fitWidths(columns, natural, c.width);
    columns.forEach((col, i) => {
      if (widths[i]! >= natural[i]!) return;
      if (col.shrink) {
        // An id cell may carry a marker before the id (`* ` for the active session): it stays.
        const lead = body.map((r) => /^(?:\u001b\[[0-9;]*m|[^A-Za-z0-9\u001b])*/.exec(r[i] ?? '')![0]);
        const leadWidth = Math.max(0, ...lead.map((l) => visibleWidth(l)));
        const ids = body.map((r, k) => (r[i] ?? '').slice(lead[k]!.length));
        const cut = cutIds(ids, widths[i]! - leadWidth, natural[i]! - leadWidth, mark);
        widths[i] = cut.width + leadWidth;
        body = body.map((r, k) => r.map((cell, j) => (j === i ? `${lead[k]}${cut.cells[k]}` : cell)));
      } else if (col.flex) {
        body = body.map((r) => r.map((cell, j) => (j === i ? truncate(cell, widths[i]!, mark) : cell)));
      }
    });
  }
  const line = (cells: readonly string[]): string => {
    const text = cells
      .map((cell, i) => {
        // A left-aligned last column is not padded: no trailing spaces.
        const align = columns[i]!.align ?? 'left';
        return i === cells.length - 1 && align === 'left' ? cell : pad(cell, widths[i]!, align);
      })
      .join('  ');
    // Narrower than the fixed columns themselves: the line is cut, never wrapped.
    return c.width !== null && visibleWidth(text) > c.width ? truncate(text, c.width, mark) : text;
  };
  return [c.dim(line(columns.map((col) => col.header))), ...body.map(line)];
}
