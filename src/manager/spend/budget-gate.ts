import { budgetName, budgetUse } from '../../domain/spend/budget-policy.js';
import type { BudgetCheck, BudgetScope, BudgetVerdict } from '../../domain/spend/budget-policy.js';
import type { SessionState } from '../../domain/state.js';
import type { BudgetLevel } from '../../domain/toolkits/tokens.js';
import type { AgentContext } from '../agents/agent-hooks.js';
import { waitForCall } from '../agents/transcript-wait.js';
import type { Budgets } from './budgets.js';

/** What a hook answers before a tool call: let it run, put it to the user, or refuse it; and what the model is told. */
export interface ToolGate {
  /** null: nothing to say (the CLI decides as it would without baton). */
  decision: 'ask' | 'deny' | null;
  /** Why, naming the budget, the spend and how to raise it (for ask and deny). */
  reason: string | null;
  /** The running total when a budget crossed a threshold (80 %, 95 %, past it) since the last tool call. */
  context: string | null;
}

/** What the gate needs of the manager. */
export interface GateManager {
  get(id: string): Promise<SessionState>;
  readonly budgets: Pick<Budgets, 'verdict'>;
  readonly hooks: { ingest(id: string, a: AgentContext, file: string | null, agent: string): Promise<void> };
}

const LEVELS: readonly BudgetLevel[] = ['none', 'ok', 'warning', 'critical', 'exceeded'];

/**
 * Before one of a conversation's tool calls (Claude Code and Codex PreToolUse, Gemini CLI
 * BeforeTool): reads the tokens its transcript gained since the last hook, then judges the
 * budgets of the session, of the phase it works on and of its agent. Over a budget with
 * `stop`: deny; with `ask`: ask (deny on the CLIs that cannot ask, {@link CANNOT_ASK}); a budget that crossed a threshold with this read: the running
 * total as context for the model. The tokens are read first, so a turn of many tool calls is
 * judged on what it spent so far, not on what the last Stop saw.
 */
export async function gateToolCall(
  m: GateManager,
  id: string,
  a: AgentContext,
  callId: string | null = null,
): Promise<ToolGate> {
  const before = await m.get(id);
  const scope = scopeOf(before, a);
  const was = m.budgets.verdict(before, scope);
  // The response asking for this call may not be in the transcript yet (Claude Code writes it as
  // the hook fires): with a budget to judge, wait for it (at most a second).
  if (was.checks.length && callId && a.transcriptPath && a.cli === 'claude')
    await waitForCall(a.transcriptPath, callId);
  await m.hooks.ingest(id, a, a.transcriptPath, a.agent);
  const now = m.budgets.verdict(await m.get(id), scope);
  const raise = (c: BudgetCheck): string =>
    `baton budget set ${c.unit === 'tokens' ? '<tokens>' : '--cost <usd>'}${scopeFlag(c)} --session ${id}`;
  if ((now.action === 'stop' || now.action === 'ask') && now.worst) {
    const c = now.worst;
    const spent = `${budgetName(c)} is exceeded (${budgetUse(c)}; policy ${now.action})`;
    if (now.action === 'ask' && CANNOT_ASK[a.cli]) {
      const reason = `baton: ${spent}, and ${CANNOT_ASK[a.cli]} cannot put a tool call to the user, so this tool call was refused. Stop and tell the user; it goes on once they raise the budget (\`${raise(c)}\`) or let it be exceeded with a warning only (\`baton budget set${scopeFlag(c)} --on-exceed warn --session ${id}\`).`;
      return { decision: 'deny', reason, context: null };
    }
    const reason =
      now.action === 'stop'
        ? `baton: ${spent}, so this tool call was refused. Stop and tell the user; it goes on once they raise the budget (\`${raise(c)}\`).`
        : `baton: ${spent}. Allow this tool call to spend more, or raise the budget (\`${raise(c)}\`).`;
    return { decision: now.action === 'stop' ? 'deny' : 'ask', reason, context: null };
  }
  return { decision: null, reason: null, context: crossed(was, now) };
}

/**
 * The CLIs whose hooks cannot put a tool call to the user, by the name the reason gives them.
 * Codex (0.169–0.171) takes `permissionDecision: "ask"` but does not act on it: the call runs
 * and the model never hears why. Gemini CLI's `decision: "ask"` in `-p` mode waits for a
 * confirmation no one can give, until killed. So `ask` is answered there with a refusal whose
 * reason says so: the budget still holds, and the agent can tell the user.
 */
const CANNOT_ASK: Readonly<Record<string, string>> = { codex: 'Codex', gemini: 'Gemini CLI' };

/** `budget set`'s flag naming the check's phase or agent ('' for the session's). */
function scopeFlag(c: BudgetCheck): string {
  return c.scope === 'phase' ? ` --phase ${c.name}` : c.scope === 'agent' ? ` --agent ${c.name}` : '';
}

/** The phase the conversation works on (BATON_PHASE, else the one phase in progress) and its agent. */
function scopeOf(s: SessionState, a: AgentContext): BudgetScope {
  const running = s.phases.filter((p) => p.status === 'in_progress');
  return { phase: a.phase ?? (running.length === 1 ? running[0]!.id : null), agent: a.agent };
}

/** The running total, when a budget reached a higher level (warning, critical, exceeded) than before. */
function crossed(was: BudgetVerdict, now: BudgetVerdict): string | null {
  const up = now.checks.filter((c) => {
    const old = was.checks.find((o) => o.scope === c.scope && o.name === c.name && o.unit === c.unit);
    return (
      LEVELS.indexOf(c.level) >= LEVELS.indexOf('warning') &&
      LEVELS.indexOf(c.level) > LEVELS.indexOf(old?.level ?? 'ok')
    );
  });
  if (!up.length) return null;
  return `[baton] Budget: ${up.map((c) => `${budgetName(c)} ${c.level} at ${budgetUse(c)}, on exceed: ${c.onExceed}`).join('; ')}.`;
}
