/**
 * Token use over time (uPlot): the cumulative total, by agent or by phase, the budget with its
 * 80 % and 95 % thresholds, and the estimated cost on its own axis where the model is known.
 * The series come sampled from the server (at most a few hundred points, the last one exact),
 * so a session of 100,000 records draws as fast as one of ten. The totals are also a table.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { SessionPage } from '../../manager/index.js';
import { num } from './format.js';

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#bab0ac', '#e15759'];

type By = 'agent' | 'phase';

function css(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function build(page: SessionPage, by: By, width: number): { opts: uPlot.Options; data: uPlot.AlignedData } {
  const t = page.tokens;
  const fg = css('--fg-muted', '#666');
  const grid = css('--grid', 'rgba(127,127,127,0.2)');
  const groups = by === 'agent' ? t.byAgent : t.byPhase;
  const series: uPlot.Series[] = [{ label: 'time' }, { label: 'total', stroke: css('--fg', '#222'), width: 2 }];
  const data: (number | null)[][] = [t.time.map((ms) => ms / 1000), t.total];
  Object.entries(groups).forEach(([name, values], i) => {
    series.push({ label: name, stroke: PALETTE[i % PALETTE.length]!, width: 1.5 });
    data.push(values);
  });
  const max = t.budget.max;
  if (max !== null) {
    for (const [label, f, dash, color] of [['budget', 1, [], '#e15759'], ['95 %', 0.95, [6, 4], '#e15759'], ['80 %', 0.8, [2, 4], '#edc948']] as const) {
      series.push({ label, stroke: color, width: 1, dash: [...dash], points: { show: false } });
      data.push(t.time.map(() => max * f));
    }
  }
  if (t.usd) {
    series.push({ label: 'cost (USD)', stroke: '#59a14f', width: 1, dash: [4, 2], scale: 'usd', value: (_u, v) => (v === null ? '—' : `$${v.toFixed(4)}`) });
    data.push(t.usd);
  }
  const axes: uPlot.Axis[] = [
    { stroke: fg, grid: { stroke: grid } },
    { stroke: fg, grid: { stroke: grid }, size: 60, values: (_u, vals) => vals.map((v) => (v >= 1e6 ? `${v / 1e6}M` : v >= 1e3 ? `${v / 1e3}k` : String(v))) },
  ];
  if (t.usd) axes.push({ scale: 'usd', side: 1, stroke: fg, grid: { show: false }, values: (_u, vals) => vals.map((v) => `$${v}`) });
  return {
    opts: { width, height: 280, series, axes, scales: { x: { time: true } }, legend: { live: true }, cursor: { drag: { x: true, y: false } } },
    data: data as uPlot.AlignedData,
  };
}

/** The token section's content. */
export function TokenChart({ page }: { page: SessionPage }) {
  const [by, setBy] = useState<By>('agent');
  const box = useRef<HTMLDivElement>(null);
  const t = page.tokens;
  useEffect(() => {
    const el = box.current;
    if (!el || t.time.length === 0) return undefined;
    const { opts, data } = build(page, by, el.clientWidth || 600);
    const plot = new uPlot(opts, data, el);
    const ro = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 280 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [page, by]);
  const v = page.view.tokens;
  const last = t.total.length ? t.total[t.total.length - 1]! : 0;
  const lastBy = Object.fromEntries(Object.entries(by === 'agent' ? t.byAgent : t.byPhase).map(([k, vals]) => [k, vals[vals.length - 1] ?? 0]));
  const costs = (by === 'agent' ? v.cost?.byAgent : v.cost?.byPhase) ?? {};
  const rows = by === 'agent' ? v.byAgent : v.byPhase;
  return (
    <div class="tokens">
      <div class="chips" role="group" aria-label="Break token use down by">
        {(['agent', 'phase'] as const).map((b) => (
          <button type="button" key={b} aria-pressed={by === b} onClick={() => setBy(b)}>
            by {b}
          </button>
        ))}
      </div>
      <p class="summary">
        <strong data-testid="token-total">{num(t.budget.used)}</strong> tokens (input + output)
        {t.budget.max !== null ? ` of a budget of ${num(t.budget.max)} (${t.budget.percent}%, ${t.budget.level})` : ', no budget'}
        {v.cost && v.cost.total.usd !== null ? ` · estimated cost $${v.cost.total.usd.toFixed(4)}` : v.cost && v.cost.total.pricedUsd > 0 ? ` · at least $${v.cost.total.pricedUsd.toFixed(4)}` : ''}
        {` · ${num(t.records)} records`}
      </p>
      {t.time.length ? (
        <div ref={box} class="chart" role="img" aria-label={`Cumulative token use over time by ${by}; ${num(last)} in total`} data-last-total={last} data-last-by={JSON.stringify(lastBy)} data-points={t.time.length} />
      ) : (
        <p class="muted empty">No tokens recorded.</p>
      )}
      <table class="compact">
        <caption class="sr-only">Tokens by {by}</caption>
        <thead>
          <tr>
            <th scope="col">{by}</th>
            <th scope="col">input</th>
            <th scope="col">output</th>
            <th scope="col">cached</th>
            <th scope="col">cost</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(rows).map(([k, c]) => (
            <tr key={k} data-key={k}>
              <th scope="row">{k}</th>
              <td>{num(c.input)}</td>
              <td>{num(c.output)}</td>
              <td>{num(c.cached)}</td>
              <td>{costs[k] ? (costs[k]!.usd !== null ? `$${costs[k]!.usd!.toFixed(4)}` : 'unknown') : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
