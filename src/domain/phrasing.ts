/** Small sentence helpers shared by the resume planner and its renderer. */

/** "1 file", "3 files" (or the given plural). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Items joined with ", ". */
export function list(items: string[]): string {
  return items.join(', ');
}
