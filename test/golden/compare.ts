/**
 * Compares a text with its committed golden file, or rewrites the golden when UPDATE_GOLDEN=1.
 * On a difference the assertion message is a unified-style line diff, readable in the test
 * output, not a 100 kB string comparison.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

/** Checks `actual` against the golden at `file` (see the module comment). */
export function compareGolden(file: string, actual: string): void {
  if (process.env['UPDATE_GOLDEN'] === '1') {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  if (!fs.existsSync(file)) throw new Error(`No golden at ${file}; record it with UPDATE_GOLDEN=1 and commit it.`);
  const expected = fs.readFileSync(file, 'utf8');
  if (expected === actual) return;
  expect.fail(
    `${path.basename(file)} differs from the golden (- golden, + now; UPDATE_GOLDEN=1 rewrites it if the change is meant):\n${lineDiff(expected, actual)}`,
  );
}

/**
 * A line diff: the differing middle of the two texts (common head and tail cut), with three
 * lines of context, capped at 200 lines.
 */
export function lineDiff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const from = Math.max(0, head - 3);
  const out = [`@@ line ${head + 1} @@`];
  for (let i = from; i < head; i++) out.push(`  ${a[i]}`);
  for (let i = head; i < a.length - tail; i++) out.push(`- ${a[i]}`);
  for (let i = head; i < b.length - tail; i++) out.push(`+ ${b[i]}`);
  for (let i = a.length - tail; i < Math.min(a.length, a.length - tail + 3); i++) out.push(`  ${a[i]}`);
  return (out.length > 200 ? [...out.slice(0, 200), `… ${out.length - 200} more lines`] : out).join('\n');
}
