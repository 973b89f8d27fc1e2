/**
 * Tables for people, as gh and docker print them: a header on every table, columns as wide as
 * their widest cell, and on a terminal the one free-text column (a title, a message) cut at a
 * word boundary with an ellipsis so each row fits the width. In a pipe nothing is cut.
 */
import type { Paint } from '../io.js';
import { ellipsis, truncate, visibleWidth } from '../terminal.js';

/** A column: its header, alignment, and whether it is the free text that gives way to fit. */
export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** The column cut to fit the terminal (one per table, usually the last). */
  flex?: boolean;
  /** A column cut too (an id) once the free text is down to its narrowest and the row still does not fit. */
  shrink?: boolean;
}

/** The narrowest a free-text column is cut to; below that, the row wraps instead. */
const MIN_FLEX = 12;

function pad(s: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - visibleWidth(s)));
  return align === 'right' ? `${fill}${s}` : `${s}${fill}`;
}

/** The table as lines: a dimmed header, then the rows, columns two spaces apart. */
export function renderTable(columns: readonly Column[], rows: readonly string[][], c: Paint): string[] {
  const widths = columns.map((col, i) => Math.max(visibleWidth(col.header), ...rows.map((r) => visibleWidth(r[i] ?? ''))));
  const flex = columns.findIndex((col) => col.flex);
  if (c.width !== null && flex >= 0) {
    const total = (): number => widths.reduce((n, w) => n + w, 0) + 2 * (columns.length - 1);
    widths[flex] = Math.max(MIN_FLEX, widths[flex]! - Math.max(0, total() - c.width));
    columns.forEach((col, i) => {
      if (col.shrink) widths[i] = Math.max(MIN_FLEX, widths[i]! - Math.max(0, total() - c.width!));
    });
  }
  const mark = ellipsis(c);
  const cut = columns.map((col, i) => c.width !== null && (col.flex || col.shrink));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => {
        const fitted = cut[i] ? truncate(cell, widths[i]!, mark) : cell;
        // A left-aligned last column is not padded: no trailing spaces.
        const align = columns[i]!.align ?? 'left';
        return i === cells.length - 1 && align === 'left' ? fitted : pad(fitted, widths[i]!, align);
      })
      .join('  ');
  return [c.dim(line(columns.map((col) => col.header))), ...rows.map(line)];
}
