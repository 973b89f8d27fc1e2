/**
 * Token use over time (uPlot): the cumulative total, by agent or by phase, the budget with its
 * 80 % and 95 % thresholds, the estimated cost on its own axis where the model is known, and
 * the cost budget on that axis when one is set. Both axes start at zero; the legend shows the
 * values at the cursor, else the last ones. Money reads as the CLI prints it (server-formatted).
 * The series come sampled from the server (at most a few hundred points, the last one exact),
 * so a session of 100,000 records draws as fast as one of ten. The totals are also a table.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { SessionPage } from '../../manager/index.js';
import { num } from './format.js';

const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#b07aa1',
  '#76b7b2',
  '#edc948',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
  '#e15759',
];

type By = 'agent' | 'phase';

function css(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** The value at the cursor, else the last one: the legend shows numbers, never uPlot's "--". */
function at(u: uPlot, sidx: number, idx: number | null | undefined): number | null {
  const col = u.data[sidx] as ArrayLike<number | null> | undefined;
  if (!col || col.length === 0) return null;
  return col[idx ?? col.length - 1] ?? null;
}

const tokensText = (v: number | null): string => (v === null ? '0' : num(Math.round(v)));
const usdText = (v: number | null): string =>
  v === null ? '$0.00' : v < 0.01 && v > 0 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
const shortTokens = (v: number): string => (v >= 1e6 ? `${v / 1e6}M` : v >= 1e3 ? `${v / 1e3}k` : String(v));

/** Writes where the token and cost axes start on the chart's box (`data-y-min`, `data-usd-min`), for people reading the markup and for tests. */
function markScale(u: uPlot, key: string): void {
  const box = u.root.parentElement;
  const min = u.scales[key]?.min;
  if (box && (key === 'y' || key === 'usd') && min !== undefined && min !== null)
    box.dataset[key === 'y' ? 'yMin' : 'usdMin'] = String(min);
}

function build(page: SessionPage, by: By, width: number): { opts: uPlot.Options; data: uPlot.AlignedData } {
  const t = page.tokens;
  const fg = css('--fg-muted', '#666');
  const grid = css('--grid', 'rgba(127,127,127,0.2)');
  const groups = by === 'agent' ? t.byAgent : t.byPhase;
  const tokenValue = (u: uPlot, _v: number | null, sidx: number, idx: number | null): string =>
    tokensText(at(u, sidx, idx));
  const usdValue = (u: uPlot, _v: number | null, sidx: number, idx: number | null): string => usdText(at(u, sidx, idx));
  const timeValue = (u: uPlot, _v: number | null, sidx: number, idx: number | null): string => {
    const x = at(u, sidx, idx);
    return x === null ? '' : new Date(x * 1000).toISOString().replace('T', ' ').slice(0, 19);
  };
  const series: uPlot.Series[] = [
    { label: 'time', value: timeValue },
    { label: 'total', stroke: css('--fg', '#222'), width: 2, value: tokenValue },
  ];
  const data: (number | null)[][] = [t.time.map((ms) => ms / 1000), t.total];
  Object.entries(groups).forEach(([name, values], i) => {
    series.push({ label: name, stroke: PALETTE[i % PALETTE.length]!, width: 1.5, value: tokenValue });
    data.push(values);
  });
  const max = t.budget.max;
  if (max !== null) {
    for (const [label, f, dash, color] of [
      ['budget', 1, [], '#e15759'],
      ['95 %', 0.95, [6, 4], '#e15759'],
      ['80 %', 0.8, [2, 4], '#edc948'],
    ] as const) {
      series.push({ label, stroke: color, width: 1, dash: [...dash], points: { show: false }, value: tokenValue });
      data.push(t.time.map(() => max * f));
    }
  }
  const costBudget = page.money.budgetUsd;
  const usd = t.usd !== null || costBudget !== null;
  if (t.usd) {
    series.push({ label: 'cost (USD)', stroke: '#59a14f', width: 1, dash: [4, 2], scale: 'usd', value: usdValue });
    data.push(t.usd);
  }
  if (costBudget !== null) {
    series.push({
      label: 'cost budget',
      stroke: '#59a14f',
      width: 1.5,
      dash: [10, 4],
      scale: 'usd',
      points: { show: false },
      value: usdValue,
    });
    data.push(t.time.map(() => costBudget));
  }
  const top = (vals: ReadonlyArray<number | null>, also: number | null): number =>
    Math.max(also ?? 0, ...vals.map((v) => v ?? 0));
  const axes: uPlot.Axis[] = [
    { stroke: fg, grid: { stroke: grid } },
    { stroke: fg, grid: { stroke: grid }, size: 60, values: (_u, vals) => vals.map(shortTokens) },
  ];
  // Both axes start at zero: a cost axis from $0.40 makes a small cost look like most of the budget.
  const scales: uPlot.Scales = {
    x: { time: true },
    y: { range: (_u, _min, dataMax) => [0, Math.max(1, dataMax, max ?? 0) * 1.05] },
  };
  if (usd) {
    axes.push({
      scale: 'usd',
      side: 1,
      stroke: fg,
      grid: { show: false },
      size: 60,
      values: (_u, vals) => vals.map((v) => usdText(v)),
    });
    const usdTop = top(t.usd ?? [], costBudget);
    scales['usd'] = { range: () => [0, (usdTop > 0 ? usdTop : 1) * 1.1] };
  }
  return {
    opts: {
      width,
      height: 280,
      series,
      axes,
      scales,
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      hooks: { setScale: [markScale] },
    },
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
  const lastBy = Object.fromEntries(
    Object.entries(by === 'agent' ? t.byAgent : t.byPhase).map(([k, vals]) => [k, vals[vals.length - 1] ?? 0]),
  );
  const costs = by === 'agent' ? page.money.byAgent : page.money.byPhase;
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
        {t.budget.max !== null
          ? ` of a budget of ${num(t.budget.max)} (${t.budget.percent}%, ${t.budget.level})`
          : ', no budget'}
        {page.money.total !== null ? (
          <>
            {' '}
            · estimated cost <strong data-testid="cost">{page.money.total}</strong>
          </>
        ) : null}
        {page.money.budget !== null ? (
          <>
            {' '}
            · cost budget <span data-testid="cost-budget">{page.money.budget}</span>
          </>
        ) : null}
        {` · ${num(t.records)} records`}
      </p>
      {t.time.length ? (
        <div
          ref={box}
          class="chart"
          role="img"
          aria-label={`Cumulative token use over time by ${by}; ${num(last)} in total`}
          data-last-total={last}
          data-last-by={JSON.stringify(lastBy)}
          data-points={t.time.length}
        />
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
              <td data-label="cost">{costs[k] ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
