/**
 * The first lost seq a `repair.events_lost` event `e` stands for (its seqs `from` … own seq - 1
 * were acknowledged once and are never reused), or null when `e` is no such event. Shared by
 * every store that checks that seqs are contiguous.
 */
export function lossStart(e: Record<string, unknown>): number | null {
  if (e['type'] !== 'repair.events_lost') return null;
  const d = e['data'] as { from?: unknown; to?: unknown } | null | undefined;
  if (
    typeof d !== 'object' ||
    d === null ||
    typeof d.from !== 'number' ||
    d.to !== (e['seq'] as number) - 1 ||
    d.from > (e['seq'] as number)
  )
    return null;
  return d.from;
}
