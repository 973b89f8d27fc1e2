/** `baton budget`: show the budgets, `budget set`, `budget clear` (docs/budgets.md). */
import type { Command } from 'commander';
import { BatonError, budgetName, changeView, budgetUse } from '../../manager/index.js';
import type { BudgetPolicy, BudgetReport, BudgetSetInput } from '../../manager/index.js';
import type { Ctx } from '../context.js';
import { common, strict } from '../program.js';
import type { On } from '../program.js';
import { num } from '../render/time.js';

function policyText(p: BudgetPolicy): string {
  const parts = [
    ...(p.tokens !== null ? [`${num(p.tokens)} tokens`] : []),
    ...(p.usd !== null ? [`$${p.usd.toFixed(2)}`] : []),
  ];
  return `${parts.length ? parts.join(' and ') : 'no budget'}, on exceed: ${p.onExceed}`;
}

/** The budgets for people: each policy, then each budget's use. */
export function budgetText(r: BudgetReport): string {
  const p = r.policies;
  const lines = [`Session ${r.sessionId}: ${policyText(p.session)}`];
  for (const [k, v] of Object.entries(p.phases)) lines.push(`Phase ${k}: ${policyText(v)}`);
  for (const [k, v] of Object.entries(p.agents)) lines.push(`Agent ${k}: ${policyText(v)}`);
  for (const c of r.verdict.checks) lines.push(`  ${budgetName(c)}: ${budgetUse(c)} ${c.level}`);
  if (r.verdict.action === 'ask' || r.verdict.action === 'stop')
    lines.push(
      r.verdict.action === 'stop'
        ? 'Over budget with policy stop: new work is refused until a budget is raised.'
        : "Over budget with policy ask: the agents' tool calls are put to the user (refused on Codex and Gemini CLI, which cannot ask).",
    );
  return lines.join('\n');
}

/** `budget set [TOKENS] [--cost USD] [--phase P] [--agent A] [--on-exceed warn|ask|stop]` and `budget clear`. */
export function registerBudget(program: Command, on: On): void {
  const budget = program
    .command('budget')
    .description('show, set or clear the budgets (tokens, cost; of the session, a phase or an agent) and their policy');
  on(
    common(budget.command('show', { isDefault: true }).description('the budgets and the use against each')),
    async (ctx) => {
      const r = await ctx.manager().budgets.get(await ctx.sessionId());
      ctx.emit(r, () => budgetText(r));
    },
  );
  on(
    strict(
      common(
        budget
          .command('set')
          .description(
            "set the session's budget (with --phase or --agent, that phase's or agent's) and/or what happens once it is exceeded",
          )
          .argument('[tokens]', 'max tokens (input + output)')
          .option('--cost <usd>', 'cost budget in US dollars (estimated from the pricing table)')
          .option('--phase <phase>', "a phase's budget instead of the session's")
          .option('--on-exceed <policy>', 'warn (default), ask (put tool calls to the user) or stop (refuse new work)'),
      ),
    ),
    async (ctx, [tokens], o) => {
      const input: BudgetSetInput = {
        ...(tokens !== undefined ? { tokens: String(tokens) } : {}),
        ...(o['cost'] !== undefined ? { usd: String(o['cost']) } : {}),
        ...(o['onExceed'] !== undefined ? { onExceed: String(o['onExceed']) } : {}),
        ...scope(o),
      };
      if (input.tokens === undefined && input.usd === undefined && input.onExceed === undefined)
        throw new BatonError('BAD_INPUT', 'Nothing to set.', {
          hint: 'Pass a token budget (`budget set 500000`), a cost budget (`budget set --cost 25`) or a policy (`budget set --on-exceed stop`).',
        });
      await change(ctx, input, 'set');
    },
  );
  on(
    strict(
      common(
        budget
          .command('clear')
          .option('--cost', 'clear the cost budget instead of the token budget')
          .option('--phase <phase>', "a phase's budget instead of the session's"),
      ),
    ),
    async (ctx, _a, o) => {
      await change(ctx, { ...(o['cost'] === true ? { usd: null } : { tokens: null }), ...scope(o) }, 'clear');
    },
  );
}

/** --phase, or --agent given on the command line (BATON_AGENT names who sets it, never whose budget it is). */
function scope(o: Record<string, unknown>): Pick<BudgetSetInput, 'phase' | 'agent'> {
  return {
    ...(typeof o['phase'] === 'string' ? { phase: o['phase'] } : {}),
    ...(typeof o['agent'] === 'string' ? { agent: o['agent'] } : {}),
  };
}

async function change(ctx: Ctx, input: BudgetSetInput, what: 'set' | 'clear'): Promise<void> {
  const m = ctx.manager();
  const r = await m.budgets.set(await ctx.sessionId(), input, ctx.change());
  const t = r.state.tokens;
  const p = input.phase ? t.phaseBudgets?.[input.phase] : input.agent ? t.agentBudgets?.[input.agent] : null;
  const whose = input.phase ? `Phase ${input.phase}: ` : input.agent ? `Agent ${input.agent}: ` : '';
  const said: string[] = [];
  if (what === 'clear') said.push(`${whose}${input.usd === null ? 'Cost budget cleared' : 'Budget cleared'}`);
  else {
    const tokens = p ? p.tokens : t.budgetMax;
    const usd = p ? p.usd : (t.costBudgetUsd ?? null);
    if (input.tokens !== undefined) said.push(`${whose}Budget set to ${num(tokens ?? 0)}`);
    if (input.usd !== undefined) said.push(`${whose}Cost budget set to $${(usd ?? 0).toFixed(2)}`);
    if (input.onExceed !== undefined) said.push(`${whose}On exceed: ${input.onExceed}`);
  }
  ctx.emit(changeView(r.state), said.join('\n'));
}
