import type { Command } from 'commander';
import {
  BatonError,
  BUILTIN_PRICING,
  PRICING_AS_OF,
  budgetAlarming,
  changeView,
  sessionBudget,
  costReport,
  costShown,
  formatCost,
  isBatonError,
  spendByHost,
  tokensLowerBound,
} from '../../manager/index.js';
import type { Cost, CostReport, HostSpend, LowerBound, SessionState, TokenCounts } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import { common, strict } from '../program.js';
import type { On } from '../program.js';
import { num } from '../render/time.js';
import { renderTable } from '../render/table.js';
import type { Column } from '../render/table.js';
import type { Paint } from '../io.js';

const BY = ['agent', 'phase', 'model', 'host'] as const;

function usd(n: number): string {
  return `$${n.toFixed(2)}`;
}

function counts(t: TokenCounts): string {
  return `${num(t.input)} in / ${num(t.output)} out / ${num(t.cached)} cached${t.cacheWrite ? ` / ${num(t.cacheWrite)} cache write` : ''}`;
}

/**
 * The cost report, or null with a warning when the pricing file cannot be used: for commands
 * that already changed the session, so a bad pricing file never hides that the change was made.
 */
function costOrWarn(ctx: Ctx, s: SessionState): CostReport | null {
  try {
    return costReport(s, ctx.manager().pricing());
  } catch (e) {
    if (!isBatonError(e)) throw e;
    ctx.warn(`cost not estimated: ${e.message}`);
    return null;
  }
}

/** Warns on stderr when the token or the cost budget is at 80 % or more. */
function budgetWarnings(ctx: Ctx, s: SessionState, cost: CostReport | null): void {
  const b = sessionBudget(s);
  if (budgetAlarming(b.level))
    ctx.io.stderr(
      `${ctx.paint.yellow(`budget[${b.level}]`)}: ${num(b.used)} of ${num(b.max ?? 0)} tokens used (${b.percent}%).\n`,
    );
  const c = cost?.budget;
  if (c && budgetAlarming(c.level)) {
    ctx.io.stderr(
      `${ctx.paint.yellow(`cost-budget[${c.level}]`)}: ${usd(c.usedUsd)} of ${usd(c.maxUsd ?? 0)} used (${c.percent}%)${c.complete ? '' : ', not counting tokens without a price'}.\n`,
    );
  }
}

function tokenTotals(t: SessionState['tokens']): Record<string, unknown> {
  return { input: t.input, output: t.output, cached: t.cached, ...(t.cacheWrite ? { cacheWrite: t.cacheWrite } : {}) };
}

/** Tokens and cost by host, as the JSON and the table show them. */
interface HostRows {
  tokens: Record<string, TokenCounts>;
  costs: Record<string, Cost>;
}

function hostRows(hosts: Record<string, HostSpend>): HostRows {
  const rows: HostRows = { tokens: {}, costs: {} };
  for (const [host, h] of Object.entries(hosts)) {
    rows.tokens[host] = h.tokens;
    rows.costs[host] = h.cost;
  }
  return rows;
}

/** `(1 response cut before its final usage: claude)`: why the counts are a lower bound. */
function boundWhy(b: LowerBound): string {
  return `${b.responses} response${b.responses === 1 ? '' : 's'} cut before ${b.responses === 1 ? 'its' : 'their'} final usage: ${b.agents.join(', ')}`;
}

function renderTokens(
  s: SessionState,
  cost: CostReport,
  by: (typeof BY)[number] | undefined,
  paint: Paint,
  hosts: HostRows,
): string {
  const t = s.tokens;
  const budget = sessionBudget(s);
  const shown = costShown(s);
  const bound = tokensLowerBound(s);
  const lines = [
    `Total: ${bound ? `at least ${counts(t)} (${boundWhy(bound)})` : counts(t)}`,
    ...(shown
      ? [`Cost (estimate): ${bound && cost.total.usd !== null ? 'at least ' : ''}${formatCost(cost.total)}`]
      : []),
  ];
  if (budget.max !== null)
    lines.push(`Budget: ${num(budget.used)} / ${num(budget.max)} (${budget.percent}%) ${budget.level}`);
  const cb = cost.budget;
  if (cb.maxUsd !== null)
    lines.push(
      `Cost budget: ${usd(cb.usedUsd)} / ${usd(cb.maxUsd)} (${cb.percent}%) ${cb.level}${cb.complete ? '' : ' (some tokens not priced)'}`,
    );
  if (by) {
    const rows: Record<string, TokenCounts> =
      by === 'phase' ? t.byPhase : by === 'model' ? (t.byModel ?? {}) : by === 'host' ? hosts.tokens : t.byAgent;
    const costs: Record<string, Cost> =
      by === 'phase' ? cost.byPhase : by === 'model' ? cost.byModel : by === 'host' ? hosts.costs : cost.byAgent;
    const entries = Object.entries(rows);
    if (!entries.length) lines.push(`By ${by}: none recorded`);
    else {
      // A table with a header, as every table baton prints; cost only where it is shown.
      const cells = entries.map(([k, v]) => {
        const c = shown ? costs[k] : undefined;
        return [k, num(v.input), num(v.output), num(v.cached), ...(shown ? [c ? formatCost(c) : '-'] : [])];
      });
      const cols: Column[] = [
        { header: by.toUpperCase(), shrink: true },
        { header: 'INPUT', align: 'right' },
        { header: 'OUTPUT', align: 'right' },
        { header: 'CACHED', align: 'right' },
        ...(shown ? [{ header: 'COST' }] : []),
      ];
      lines.push(`By ${by}:`, ...renderTable(cols, cells, paint).map((l) => `  ${l}`));
    }
  }
  return lines.join('\n');
}

/** `tokens` (show, with the estimated cost) and `tokens add`. */
export function registerTokens(program: Command, on: On): void {
  const tokens = program
    .command('tokens')
    .description('show token use and its estimated cost; `tokens add` adds to it')
    .option('--by <dimension>', 'break down by agent, phase, model or host (the machine that recorded them)');
  on(common(tokens), async (ctx, _a, o) => {
    const by = o['by'] as string | undefined;
    if (by !== undefined && !(BY as readonly string[]).includes(by))
      throw new BatonError('BAD_INPUT', `--by must be agent, phase, model or host; got ${JSON.stringify(by)}.`, {
        hint: 'Use --by agent, --by phase, --by model or --by host.',
      });
    const m = ctx.manager();
    const s = await m.get(await ctx.sessionId());
    const t = s.tokens;
    const cost = costReport(s, m.pricing());
    const hosts = hostRows(spendByHost(s, m.pricing()));
    ctx.emit(
      {
        ...tokenTotals(t),
        // Null when every count is complete; else the counts are at least these.
        lowerBound: tokensLowerBound(s),
        byAgent: t.byAgent,
        byPhase: t.byPhase,
        byModel: t.byModel ?? {},
        byHost: hosts.tokens,
        budget: sessionBudget(s),
        cost: { ...cost, byHost: hosts.costs },
      },
      () => renderTokens(s, cost, by as (typeof BY)[number] | undefined, ctx.paint, hosts),
    );
  });
  on(
    strict(
      common(
        tokens
          .command('add')
          .description('add token use by an agent')
          .option(
            '--phase <phase>',
            'phase the tokens were spent on (default: the one in progress; in a `baton run`, its phase)',
          )
          .option('--model <model>', 'model that spent them (prices them; see `baton pricing`)')
          .option('--input <n>', 'input tokens, not counting cached ones', '0')
          .option('--output <n>', 'output tokens (reasoning included)', '0')
          .option('--cached <n>', 'tokens read from a prompt cache', '0')
          .option('--cache-write <n>', 'tokens written to a prompt cache', '0'),
      ),
    ),
    async (ctx, _a, o) => {
      const m = ctx.manager();
      const id = await ctx.sessionId();
      const phase = (o['phase'] as string | undefined) ?? m.runs.defaultPhase(await m.get(id), ctx.run, ctx.agent);
      const input = {
        agent: ctx.agent,
        phase,
        model: (o['model'] as string | undefined) ?? null,
        input: o['input'],
        output: o['output'],
        cached: o['cached'],
        cacheWrite: o['cacheWrite'],
      };
      const r = await m.tokens(id, input, ctx.change());
      const cost = costOrWarn(ctx, r.state);
      budgetWarnings(ctx, r.state, cost);
      const t = r.state.tokens;
      const extra = cost ? { cost: cost.total, costBudget: cost.budget } : {};
      // What this call recorded first: the session's running total is labelled as such.
      const rec = r.events.find((e) => e.type === 'tokens.recorded')?.data as
        | (TokenCounts & { agent: string; phaseId: string | null; model?: string | null })
        | undefined;
      const recorded = rec
        ? {
            agent: rec.agent,
            phaseId: rec.phaseId,
            model: rec.model ?? null,
            ...tokenTotals({ ...t, ...rec, cacheWrite: rec.cacheWrite ?? 0 }),
          }
        : null;
      const said = rec
        ? `Recorded ${counts({ ...rec, cacheWrite: rec.cacheWrite ?? 0 })} for ${rec.agent}${rec.phaseId ? ` on phase ${rec.phaseId}` : ''}${rec.model ? ` (${rec.model})` : ''}\n`
        : '';
      ctx.emit(
        {
          ...changeView(r.state),
          recorded,
          tokens: { ...tokenTotals(t), budget: sessionBudget(r.state), ...extra },
        },
        `${said}Session total: ${counts(t)}`,
      );
    },
  );
}

/** `pricing`: the prices in effect. */
export function registerPricing(program: Command, on: On): void {
  on(
    common(
      program
        .command('pricing')
        .description('show the model prices used to estimate cost (built in, and the pricing file over them)'),
    ),
    async (ctx) => {
      const m = ctx.manager();
      const table = m.pricing();
      const models = Object.keys(table).sort();
      const overridden = models.filter((k) => JSON.stringify(table[k]) !== JSON.stringify(BUILTIN_PRICING[k]));
      ctx.emit({ asOf: PRICING_AS_OF, file: m.pricingFile, overridden, models: table }, () =>
        [
          `Prices in US dollars per million tokens: an estimate (built-in prices as of ${PRICING_AS_OF}).`,
          `Override file: ${m.pricingFile ?? 'none (set BATON_PRICING)'}`,
          `${'model'.padEnd(24)} ${'input'.padStart(8)} ${'output'.padStart(8)} ${'cache rd'.padStart(8)} ${'cache wr'.padStart(8)}`,
          ...models.map((k) => {
            const p = table[k]!;
            return `${k.padEnd(24)} ${String(p.input).padStart(8)} ${String(p.output).padStart(8)} ${String(p.cacheRead).padStart(8)} ${String(p.cacheWrite).padStart(8)}${overridden.includes(k) ? '  (pricing file)' : ''}`;
          }),
        ].join('\n'),
      );
    },
  );
}
