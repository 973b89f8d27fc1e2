/**
 * The five toolkits of the live-sync test (mirror-live.test.ts): each one's files at the
 * start, written here from the seed specifications, and the played writes of two
 * conversations (A: Claude Code, B: Codex or Gemini CLI), each a change a model following the
 * toolkit's prompts would make to the copy it holds.
 */
import { expect } from 'vitest';
import YAML from 'yaml';
import type { SessionState } from '../../src/domain/state.js';
import type { FormatName } from '../../src/formats/types.js';

/** A toolkit document, free-form: changed as a model would. */
export type Doc = Record<string, any>;

/** A toolkit's file: how the model reads and writes it. */
export interface Codec {
  parse(text: string): Doc;
  print(doc: Doc): string;
}
const JSON_CODEC: Codec = { parse: (t) => JSON.parse(t) as Doc, print: (d) => `${JSON.stringify(d, null, 2)}\n` };
const YAML_CODEC: Codec = { parse: (t) => YAML.parse(t) as Doc, print: (d) => YAML.stringify(d) };
/** Maestro: YAML frontmatter between `---` lines, then the Markdown log (kept as it was). */
const FRONTMATTER: Codec = {
  parse: (t) => {
    const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(t)!;
    return { fm: YAML.parse(m[1]!) as Doc, body: m[2]! };
  },
  print: (d) => `---\n${YAML.stringify(d['fm'])}---\n${d['body'] as string}`,
};
/** CCW's registry: one JSON line per session. */
const JSONL: Codec = {
  parse: (t) => ({
    lines: t
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Doc),
  }),
  print: (d) => `${(d['lines'] as Doc[]).map((l) => JSON.stringify(l)).join('\n')}\n`,
};

/** One write of the played conversation. */
export interface Step {
  who: 'A' | 'B';
  /** The copy the writer holds: the file as it was at the start, or as it wrote it last. */
  from: 'start' | 'own';
  file: string;
  codec: Codec;
  change: (d: Doc) => void;
  /** A stale write: a conflict is expected. */
  stale: boolean;
}

export interface Toolkit {
  format: FormatName;
  /** The mirror folder, relative to the work tree. */
  out: string;
  /** The toolkit's files at the start, relative to the mirror folder. */
  files: Record<string, string>;
  /** B's CLI. */
  other: 'codex' | 'gemini';
  steps: Step[];
  /** Every change of the conversation is in baton at the end. */
  check: (s: SessionState) => void;
}

const phase = (s: SessionState, id: string) => s.phases.find((p) => p.id === id)!;

// ---------------------------------------------------------------- Maestro (seed: session-management)
const maestroFile = `---
session_id: "2026-11-28-auth"
created: "2026-11-28T09:00:00Z"
updated: "2026-11-28T10:00:00Z"
status: "in_progress"
current_phase: 2
total_phases: 3
execution_mode: "sequential"
token_usage:
  total_input: 15000
  total_output: 8000
  total_cached: 0
  by_agent:
    architect: { input: 7000, output: 4000, cached: 0 }
    coder: { input: 8000, output: 4000, cached: 0 }
phases:
  - { id: 1, name: "Schema", status: "completed", agents: ["architect"], parallel: false, started: "2026-11-28T09:05:00Z", completed: "2026-11-28T09:30:00Z", blocked_by: [], files_created: ["db/schema.sql"], files_modified: [], files_deleted: [], errors: [], retry_count: 0 }
  - { id: 2, name: "Token service", status: "in_progress", agents: ["coder"], parallel: false, started: "2026-11-28T09:35:00Z", completed: null, blocked_by: [1], files_created: [], files_modified: [], files_deleted: [], errors: [], retry_count: 0 }
  - { id: 3, name: "Tests", status: "pending", agents: ["tester"], parallel: false, started: null, completed: null, blocked_by: [2], files_created: [], files_modified: [], files_deleted: [], errors: [], retry_count: 0 }
---

# Auth orchestration log

## Phase 1: Schema ✓
`;
const maestroPhases = (d: Doc): Doc[] => d['fm']['phases'] as Doc[];
export const MAESTRO: Toolkit = {
  format: 'maestro',
  out: '.gemini',
  files: { 'state/active-session.md': maestroFile },
  other: 'gemini',
  steps: [
    {
      who: 'A',
      from: 'start',
      file: 'state/active-session.md',
      codec: FRONTMATTER,
      stale: false,
      change: (d) => {
        const [, p2, p3] = maestroPhases(d);
        Object.assign(p2!, { status: 'completed', completed: '2026-11-28T10:10:00Z', files_created: ['src/token.ts'] });
        Object.assign(p3!, { status: 'in_progress', started: '2026-11-28T10:11:00Z' });
        d['fm']['current_phase'] = 3;
      },
    },
    {
      who: 'B',
      from: 'start',
      file: 'state/active-session.md',
      codec: FRONTMATTER,
      stale: true,
      change: (d) => {
        const t = d['fm']['token_usage'];
        t.total_input += 1500;
        t.by_agent.coder.input += 1500;
      },
    },
    {
      who: 'A',
      from: 'own',
      file: 'state/active-session.md',
      codec: FRONTMATTER,
      stale: true,
      change: (d) => {
        maestroPhases(d)[2]!['files_created'] = ['test/token.test.ts'];
      },
    },
  ],
  check: (s) => {
    expect(phase(s, '2').status).toBe('completed');
    expect(phase(s, '3').status).toBe('in_progress');
    expect(phase(s, '3').files.map((f) => f.path)).toContain('test/token.test.ts');
    expect(s.tokens.input).toBe(16500);
  },
};

// ---------------------------------------------------------------- bmit (seed: session-resume)
export const BMIT_STEPS = ['Requirements', 'Architecture', 'Design', 'IaC Plan', 'IaC Code', 'Deploy', 'As-Built'];
const bmitFile = JSON_CODEC.print({
  schema_version: '3.0',
  project: 'shop',
  iac_tool: 'Bicep',
  region: 'swedencentral',
  branch: 'main',
  updated: '2026-11-28T10:00:00Z',
  current_step: 2,
  decisions: { region: 'swedencentral' },
  decision_log: [
    {
      id: 'D1',
      step: 1,
      agent: '02-Requirements',
      title: 'Region',
      choice: 'swedencentral',
      rationale: 'EU data residency',
      alternatives: ['westeurope'],
      impact: 'all resources',
      timestamp: '2026-11-28T09:30:00Z',
    },
  ],
  open_findings: [],
  steps: Object.fromEntries(
    BMIT_STEPS.map((name, i) => [
      String(i + 1),
      {
        name,
        agent: `0${i + 2}-${name}`,
        status: i === 0 ? 'complete' : i === 1 ? 'in_progress' : 'pending',
        sub_step: null,
        started: i < 2 ? `2026-11-28T0${9 + i}:00:00Z` : null,
        completed: i === 0 ? '2026-11-28T09:40:00Z' : null,
        artifacts: [],
        context_files_used: [],
      },
    ]),
  ),
});
const decision = (id: string, step: number, title: string, choice: string): Doc => ({
  id,
  step,
  agent: '03-Architecture',
  title,
  choice,
  rationale: 'cost',
  alternatives: [],
  impact: 'data tier',
  timestamp: '2026-11-28T10:20:00Z',
});
export const BMIT: Toolkit = {
  format: 'bmit',
  out: 'agent-output',
  files: { 'shop/00-session-state.json': bmitFile },
  other: 'codex',
  steps: [
    {
      who: 'A',
      from: 'start',
      file: 'shop/00-session-state.json',
      codec: JSON_CODEC,
      stale: false,
      change: (d) => {
        Object.assign(d['steps']['2'], { status: 'complete', completed: '2026-11-28T10:15:00Z' });
        Object.assign(d['steps']['3'], { status: 'in_progress', started: '2026-11-28T10:16:00Z' });
        d['current_step'] = 3;
      },
    },
    {
      who: 'B',
      from: 'start',
      file: 'shop/00-session-state.json',
      codec: JSON_CODEC,
      stale: true,
      change: (d) => {
        d['decision_log'].push(decision('D2', 2, 'Database', 'Cosmos DB'));
      },
    },
    {
      who: 'A',
      from: 'own',
      file: 'shop/00-session-state.json',
      codec: JSON_CODEC,
      stale: true,
      change: (d) => {
        d['decision_log'].push(decision('D3', 3, 'Hosting', 'App Service'));
      },
    },
  ],
  check: (s) => {
    expect(phase(s, '2').status).toBe('completed');
    expect(phase(s, '3').status).toBe('in_progress');
    expect(s.decisions.map((d) => d.title)).toEqual(['Region', 'Database', 'Hosting']);
  },
};

// ---------------------------------------------------------------- BMAD (seed: session-manager)
export const BMAD_ID = 'ENG202611-ACME-SHOP';
const bmadFile = YAML_CODEC.print({
  session_id: BMAD_ID,
  created: '2026-11-28T08:00:00Z',
  last_updated: '2026-11-28T10:00:00Z',
  status: 'active',
  client: 'ACME',
  project: 'SHOP',
  prefix: 'ENG',
  tokens: { max: 150000, initial: 2000, current: 40000, peak: 40000, saved: 12000 },
  agents_spawned: [
    {
      id: 'agent-1',
      type: 'analyst',
      started: '2026-11-28T08:10:00Z',
      completed: '2026-11-28T08:40:00Z',
      tokens_used: 12000,
      output_file: '_bmad-output/temp/analyst-1.md',
      status: 'completed',
    },
  ],
  context_summary: 'Checkout analysed; payments next.',
  notes: [{ timestamp: '2026-11-28T09:00:00Z', note: 'Kick-off done', source: 'pm' }],
  decisions: [],
});
export const BMAD: Toolkit = {
  format: 'bmad',
  out: '_bmad-output',
  files: { [`sessions/${BMAD_ID}.yaml`]: bmadFile, 'sessions/active-session.yaml': `${BMAD_ID}\n` },
  other: 'gemini',
  steps: [
    {
      who: 'A',
      from: 'start',
      file: `sessions/${BMAD_ID}.yaml`,
      codec: YAML_CODEC,
      stale: false,
      change: (d) => {
        d['tokens'].current = 52000;
        d['tokens'].peak = 52000;
        d['context_summary'] = 'Payments designed; invoices next.';
        d['last_updated'] = '2026-11-28T10:30:00Z';
      },
    },
    {
      who: 'B',
      from: 'start',
      file: `sessions/${BMAD_ID}.yaml`,
      codec: YAML_CODEC,
      stale: true,
      change: (d) => {
        d['notes'].push({ timestamp: '2026-11-28T10:35:00Z', note: 'Stripe keys requested', source: 'dev' });
      },
    },
    {
      who: 'A',
      from: 'own',
      file: `sessions/${BMAD_ID}.yaml`,
      codec: YAML_CODEC,
      stale: true,
      change: (d) => {
        d['decisions'].push({
          decision: 'Use Stripe',
          rationale: 'existing account',
          made_by: 'architect',
          date: '2026-11-28',
        });
      },
    },
  ],
  check: (s) => {
    expect(s.tokens.input).toBe(52000);
    expect(s.contextSummary).toBe('Payments designed; invoices next.');
    expect(s.notes.map((n) => n.text)).toContain('Stripe keys requested');
    expect(s.decisions.map((d) => d.choice)).toContain('Use Stripe');
  },
};

// ---------------------------------------------------------------- CCW (registry layout)
const ccwSession = JSON_CODEC.print({
  session_id: 'WFS-checkout',
  session_version: '2.0',
  project: 'Checkout rewrite',
  type: 'medium',
  current_phase: 'IMPLEMENT',
  status: 'active',
  created_at: '2026-11-28T08:00:00Z',
  updated_at: '2026-11-28T10:00:00Z',
  checkpoints: {
    plan: { status: 'completed', documents: ['IMPL_PLAN.md'], timestamp: '2026-11-28T08:30:00Z' },
    implement: {
      status: 'in_progress',
      agents_completed: [],
      current_agent: 'code-developer',
      todos: { total: 3, completed: 1, in_progress: 1 },
      timestamp: '2026-11-28T08:40:00Z',
    },
    review: { status: 'pending', quality_checks: {}, timestamp: null },
  },
  context_chain: [],
  state_transitions: [],
});
const ccwRegistry = `${JSON.stringify({ id: 'WFS-checkout', status: 'active', description: 'Checkout rewrite', created: '2026-11-28T08:00:00Z', directory: '.workflow/WFS-checkout' })}\n`;
export const CCW_FILE = '.workflow/WFS-checkout/workflow-session.json';
export const CCW: Toolkit = {
  format: 'ccw',
  out: 'ccw',
  files: {
    [CCW_FILE]: ccwSession,
    '.workflow/session_status.jsonl': ccwRegistry,
    '.workflow/WFS-checkout/IMPL_PLAN.md': '# Plan\n',
  },
  other: 'codex',
  steps: [
    {
      who: 'A',
      from: 'start',
      file: CCW_FILE,
      codec: JSON_CODEC,
      stale: false,
      change: (d) => {
        Object.assign(d['checkpoints'].implement, {
          status: 'completed',
          agents_completed: ['code-developer'],
          current_agent: null,
          timestamp: '2026-11-28T10:20:00Z',
        });
        Object.assign(d['checkpoints'].review, { status: 'in_progress', timestamp: '2026-11-28T10:21:00Z' });
        d['current_phase'] = 'REVIEW';
      },
    },
    {
      who: 'B',
      from: 'start',
      file: CCW_FILE,
      codec: JSON_CODEC,
      stale: true,
      change: (d) => {
        d['status'] = 'paused';
        d['updated_at'] = '2026-11-28T10:30:00Z';
      },
    },
    {
      who: 'A',
      from: 'start',
      file: '.workflow/session_status.jsonl',
      codec: JSONL,
      stale: true,
      change: (d) => {
        d['lines'][0].complexity = 'medium';
      },
    },
  ],
  check: (s) => {
    expect(phase(s, 'implement').status).toBe('completed');
    expect(phase(s, 'review').status).toBe('in_progress');
    expect(s.status).toBe('paused');
  },
};

// ---------------------------------------------------------------- Go Team (seed: session-manager)
const GT = 'session-c0ffee01';
const goTeamRegistry = JSON_CODEC.print({
  version: '1.0.0',
  sessions: [
    {
      id: GT,
      topic: 'payments-service',
      status: 'active',
      created_at: '2026-11-28T08:00:00Z',
      updated_at: '2026-11-28T10:00:00Z',
      current_step: 4,
      current_checkpoint: null,
      progress: { steps_completed: 3, total_steps: 9, percentage: 33 },
      git_branch: `go-team/${GT}`,
      resumable: true,
    },
  ],
  last_active_session: GT,
});
const goTeamManifest = JSON_CODEC.print({
  session_id: GT,
  topic: 'payments-service',
  created_at: '2026-11-28T08:00:00Z',
  updated_at: '2026-11-28T10:00:00Z',
  checkpoints: [],
  current_checkpoint: null,
  current_step: 4,
  rollback_history: [],
});
const goTeamState = JSON_CODEC.print({
  session_id: GT,
  saved_at: '2026-11-28T10:00:00Z',
  save_trigger: 'auto',
  state: {
    topic: 'payments-service',
    date: '2026-11-28',
    phase: 'implementation',
    current_step: 4,
    current_agent: 'go-coder-agent',
    iteration_count: 0,
    max_iterations: 3,
    token_metrics: {
      total_input: 30000,
      total_output: 12000,
      total_cached: 0,
      by_agent: {
        'pm-agent': { input_tokens: 10000, output_tokens: 4000, cached_tokens: 0 },
        'go-coder-agent': { input_tokens: 20000, output_tokens: 8000, cached_tokens: 0 },
      },
    },
  },
  context: { last_action: 'Writing the handlers', pending_tasks: ['Wire DI'] },
});
const GT_STATE = `${GT}/state.json`;
export const GO_TEAM: Toolkit = {
  format: 'go-team',
  out: 'checkpoints',
  files: { 'sessions.json': goTeamRegistry, [`${GT}/manifest.json`]: goTeamManifest, [GT_STATE]: goTeamState },
  other: 'gemini',
  steps: [
    {
      who: 'A',
      from: 'start',
      file: GT_STATE,
      codec: JSON_CODEC,
      stale: false,
      change: (d) => {
        d['state'].current_step = 5;
        d['state'].current_agent = 'go-test-agent';
        // A Go Team save stamps the time it is made: after the registry baton wrote (a save
        // dated before it, naming another step, is read as older than it: staleLive).
        d['saved_at'] = new Date().toISOString();
      },
    },
    {
      who: 'B',
      from: 'start',
      file: GT_STATE,
      codec: JSON_CODEC,
      stale: true,
      // saved_at stays the stale copy's: the reader sets the file aside as older than the
      // registry baton wrote since, and live sync counts that as a loss (stale_save).
      change: (d) => {
        const t = d['state'].token_metrics;
        t.total_input += 5000;
        t.by_agent['go-coder-agent'].input_tokens += 5000;
      },
    },
    {
      who: 'A',
      from: 'own',
      file: GT_STATE,
      codec: JSON_CODEC,
      stale: true,
      change: (d) => {
        d['state'].current_step = 6;
        d['state'].current_agent = 'go-reviewer-agent';
        d['saved_at'] = new Date().toISOString();
      },
    },
    {
      who: 'B',
      from: 'start',
      file: 'sessions.json',
      codec: JSON_CODEC,
      stale: true,
      change: (d) => {
        d['sessions'][0].updated_at = '2026-11-28T10:40:00Z';
      },
    },
  ],
  check: (s) => {
    const done = s.phases.filter((p) => p.status === 'completed').length;
    expect(done).toBe(5);
    expect(s.tokens.input).toBe(35000);
  },
};
