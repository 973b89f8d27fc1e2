/**
 * Agent CLI conversations (Claude Code, Codex, Gemini CLI) seen through their hooks: how
 * their events fold into a session, which phase a hook's record belongs to, and the command
 * that continues a conversation. Pure: time and input come from the caller.
 */
import { draft } from '../decide.js';
import type { EventDraft } from '../decide.js';
import { assertWritable } from '../decide.js';
import type { EventDataMap, StoredEvent } from '../events.js';
import type { AgentBinding, LastTurn, Phase, PlanStep, SessionState } from '../state.js';
import type { ResumeCost } from '../spend/resume-cost.js';

/** The agent CLIs `baton hook` understands. */
export const AGENT_CLIS = ['claude', 'codex', 'gemini'] as const;
export type AgentCli = (typeof AGENT_CLIS)[number];

/** Most steps kept from one todo list, and the longest step text: an agent's plan is short. */
export const MAX_PLAN_STEPS = 100;
export const MAX_STEP_TEXT = 300;

/**
 * The shell command that continues a conversation in its CLI, or null for a CLI baton does
 * not know. Gemini CLI's `--resume` takes the session UUID as well as `latest` or an index.
 */
export function resumeCommand(cli: string, agentSessionId: string): string | null {
  const id = /^[A-Za-z0-9._:-]+$/.test(agentSessionId) ? agentSessionId : `'${agentSessionId.replace(/'/g, `'\\''`)}'`;
  switch (cli) {
    case 'claude':
      return `claude --resume ${id}`;
    case 'codex':
      return `codex resume ${id}`;
    case 'gemini':
      return `gemini --resume ${id}`;
    default:
      return null;
  }
}

/** A conversation to continue, as `baton resume --json` and the handoff name it. */
export interface ContinueWith {
  cli: string;
  agentSessionId: string;
  /** The command that continues it (`claude --resume <id>` …). */
  command: string;
  model: string | null;
  transcriptPath: string | null;
  /** Whether the CLI reported the conversation ended (SessionEnd). */
  ended: boolean;
  updatedAt: string;
  /** Its context at the last turn, from its transcript's last read; null before one saw usage. */
  lastTurn: LastTurn | null;
  /** What resuming it would cost now (resume-cost.ts): set by the manager, which has the prices and the clock. */
  resumeCost?: ResumeCost;
}

/**
 * The last turn of a conversation: from the read of its transcript (the bound path; else a
 * transcript of the same conversation named after it, not a sub-agent's).
 */
export function lastTurnOf(s: SessionState, b: AgentBinding): LastTurn | null {
  const files = s.transcripts?.files ?? {};
  const exact = b.transcriptPath ? files[b.transcriptPath] : undefined;
  if (exact?.lastTurn) return exact.lastTurn;
  const id8 = b.agentSessionId.slice(0, 8);
  const own = Object.entries(files).filter(
    ([p, c]) =>
      c.cli === b.cli &&
      c.agentSessionId === b.agentSessionId &&
      c.lastTurn &&
      (p.split(/[\\/]/).pop() ?? '').includes(id8),
  );
  // The most recently read, should the conversation have moved to another file.
  own.sort((x, y) => (x[1].readAt < y[1].readAt ? 1 : -1));
  return own[0]?.[1].lastTurn ?? null;
}

/** The session's conversations, most recently active first (the one to continue is the first). */
export function continueWith(s: SessionState): ContinueWith[] {
  return [...(s.agentSessions ?? [])]
    .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
    .flatMap((b) => {
      const command = resumeCommand(b.cli, b.agentSessionId);
      return command
        ? [
            {
              cli: b.cli,
              agentSessionId: b.agentSessionId,
              command,
              model: b.model,
              transcriptPath: b.transcriptPath,
              ended: b.ended !== null,
              updatedAt: b.updatedAt,
              lastTurn: lastTurnOf(s, b),
            },
          ]
        : [];
    });
}

/** The binding of a conversation, if the session has one. */
export function findBinding(s: SessionState, cli: string, agentSessionId: string): AgentBinding | undefined {
  return s.agentSessions?.find((b) => b.cli === cli && b.agentSessionId === agentSessionId);
}

/**
 * The phase a hook's record goes to: the only phase in progress; among several, the one the
 * agent works on, else the one started last. Null when none is in progress (the record then
 * belongs to the session). Never throws: a hook must record rather than ask.
 */
export function hookPhase(s: SessionState, agent: string | null): Phase | null {
  const running = s.phases.filter((p) => p.status === 'in_progress');
  if (running.length <= 1) return running[0] ?? null;
  const mine = agent ? running.filter((p) => p.agents.includes(agent)) : [];
  const pool = mine.length ? mine : running;
  return pool.reduce((a, b) => ((b.startedAt ?? '') > (a.startedAt ?? '') ? b : a));
}

/** Input of {@link decideBinding}. */
export type BindingInput = EventDataMap['agent.bound'];

/**
 * The events that bind a conversation, or bring its binding up to date (a new transcript
 * path or model): none when the session already has it as given. Fields the payload left
 * out (null) keep their recorded value.
 */
export function decideBinding(s: SessionState, b: BindingInput): EventDraft[] {
  assertWritable(s);
  const known = findBinding(s, b.cli, b.agentSessionId);
  if (
    known &&
    known.ended === null &&
    (b.transcriptPath ?? known.transcriptPath) === known.transcriptPath &&
    (b.model ?? known.model) === known.model &&
    (b.cwd ?? known.cwd) === known.cwd
  )
    return [];
  return [
    draft('agent.bound', {
      cli: b.cli,
      agentSessionId: b.agentSessionId,
      transcriptPath: b.transcriptPath ?? known?.transcriptPath ?? null,
      model: b.model ?? known?.model ?? null,
      cwd: b.cwd ?? known?.cwd ?? null,
      dirtyAtStart: known ? known.dirtyAtStart : b.dirtyAtStart,
      ...((known ? known.dirtyAtStartSha256 : b.dirtyAtStartSha256)
        ? { dirtyAtStartSha256: known ? known.dirtyAtStartSha256 : b.dirtyAtStartSha256 }
        : {}),
    }),
  ];
}

/** The step to resume at: the one in progress, else the first pending; null when all are done. */
export function resumeStep(steps: readonly PlanStep[]): PlanStep | null {
  return steps.find((x) => x.status === 'in_progress') ?? steps.find((x) => x.status === 'pending') ?? null;
}

const MARKS: Record<PlanStep['status'], string> = { completed: 'x', in_progress: '>', pending: ' ', cancelled: '-' };

/** A plan's steps as text lines (`[x] done`, `[>] in progress`, `[ ] pending`, `[-] cancelled`), the resume step marked. */
export function stepsText(steps: readonly PlanStep[], resume: PlanStep | null, indent = '  '): string[] {
  return steps.map(
    (x) =>
      `${indent}[${MARKS[x.status]}] ${x.name}${resume && x.name === resume.name && x.status === resume.status ? '  ← resume here' : ''}`,
  );
}

/**
 * Records an agent's todo list as the steps of the phase it works on (or of the session),
 * and, when the step in progress changed, reaching it as the phase's sub-step: the resume
 * plan then knows where to resume without the model calling baton.
 */
export function decideSteps(
  s: SessionState,
  agent: string | null,
  raw: readonly PlanStep[],
  target?: Phase | null,
): EventDraft[] {
  assertWritable(s);
  const steps = raw.slice(0, MAX_PLAN_STEPS).map((x) => ({ name: x.name.slice(0, MAX_STEP_TEXT), status: x.status }));
  // `target`: the phase the caller chose (a run's own phase); else the hook's guess.
  const phase = target !== undefined ? target : hookPhase(s, agent);
  const before = phase ? phase.steps : s.steps;
  if (before && JSON.stringify(before) === JSON.stringify(steps)) return [];
  const out: EventDraft[] = [draft('steps.planned', { phaseId: phase?.id ?? null, agent, steps })];
  const current = steps.find((x) => x.status === 'in_progress');
  if (phase && current && phase.subStep !== current.name.slice(0, 200))
    out.push(draft('substep.reached', { phaseId: phase.id, name: current.name.slice(0, 200) }));
  return out;
}

/** Sub-agent start: it works on the phase in progress; `subagent.started` once per agent id. */
export function decideSubagent(
  s: SessionState,
  what: 'start' | 'stop',
  a: { agent: string; agentId: string; agentType: string | null; parent: string | null },
  target?: Phase | null,
): EventDraft[] {
  assertWritable(s);
  const known = s.subagents?.find((x) => x.agentId === a.agentId);
  const phaseId = known?.phaseId ?? (target !== undefined ? target : hookPhase(s, a.parent))?.id ?? null;
  if (what === 'start')
    return known
      ? []
      : [draft('subagent.started', { phaseId, agent: a.agent, agentId: a.agentId, agentType: a.agentType })];
  if (known?.stoppedAt) return [];
  const start = known
    ? []
    : [draft('subagent.started', { phaseId, agent: a.agent, agentId: a.agentId, agentType: a.agentType })];
  return [...start, draft('subagent.stopped', { phaseId, agent: a.agent, agentId: a.agentId })];
}

type Fold<K extends keyof EventDataMap> = (s: SessionState, d: EventDataMap[K], e: StoredEvent) => void;

function addAgent(s: SessionState, phaseId: string | null, agent: string): void {
  const p = phaseId === null ? undefined : s.phases.find((x) => x.id === phaseId);
  if (p && !p.agents.includes(agent)) p.agents.push(agent);
}

/** How the agent events fold into a state (used by `apply`). */
export const AGENT_HANDLERS: {
  [K in 'agent.bound' | 'agent.ended' | 'subagent.started' | 'subagent.stopped' | 'steps.planned']: Fold<K>;
} = {
  'agent.bound': (s, d, e) => {
    const list = (s.agentSessions ??= []);
    const known = list.find((b) => b.cli === d.cli && b.agentSessionId === d.agentSessionId);
    if (known) {
      Object.assign(known, {
        transcriptPath: d.transcriptPath,
        model: d.model,
        cwd: d.cwd,
        updatedAt: e.time,
        ended: null,
      });
      return;
    }
    list.push({
      cli: d.cli,
      agentSessionId: d.agentSessionId,
      transcriptPath: d.transcriptPath,
      model: d.model,
      cwd: d.cwd,
      dirtyAtStart: [...(d.dirtyAtStart ?? [])],
      ...(d.dirtyAtStartSha256 ? { dirtyAtStartSha256: { ...d.dirtyAtStartSha256 } } : {}),
      boundAt: e.time,
      updatedAt: e.time,
      ended: null,
    });
  },
  'agent.ended': (s, d, e) => {
    const b = s.agentSessions?.find((x) => x.cli === d.cli && x.agentSessionId === d.agentSessionId);
    if (b) {
      b.ended = { at: e.time, reason: d.reason };
      b.updatedAt = e.time;
    }
  },
  'subagent.started': (s, d, e) => {
    const list = (s.subagents ??= []);
    if (!list.some((x) => x.agentId === d.agentId))
      list.push({
        agent: d.agent,
        agentId: d.agentId,
        agentType: d.agentType,
        phaseId: d.phaseId,
        startedAt: e.time,
        stoppedAt: null,
      });
    addAgent(s, d.phaseId, d.agent);
  },
  'subagent.stopped': (s, d, e) => {
    const x = s.subagents?.find((a) => a.agentId === d.agentId);
    if (x) x.stoppedAt = e.time;
  },
  'steps.planned': (s, d) => {
    const p = d.phaseId === null ? undefined : s.phases.find((x) => x.id === d.phaseId);
    const steps = (d.steps ?? []).map((x) => ({ name: x.name, status: x.status }));
    if (p) {
      p.steps = steps;
      if (d.agent) addAgent(s, p.id, d.agent);
    } else if (d.phaseId === null) s.steps = steps;
  },
};
