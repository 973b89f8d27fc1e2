/**
 * Fixtures for issue 27 ("after import, the toolkit's rules are dropped") for Go Team, bmit and
 * CCW, written from the seed specifications (../shared/seeds/001, 002, 004) as files in a folder:
 * each builder writes one toolkit's tree under `root` and returns the foreign session id.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

function put(root: string, rel: string, content: unknown): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
}

const GT = 'checkpoints';
export const GO_TEAM_ID = 'session-0b5e1a11';
export const GO_TEAM_BRANCH = `go-team/${GO_TEAM_ID}`;
const STEP_NAMES = ['init', 'requirements', 'architecture', 'implementation', 'testing'];

/** The commit of step `n`'s checkpoint. */
export function commitOf(n: number): string {
  return String(n).repeat(40);
}

/** A Go Team checkpoint file (seed 001 / checkpoint-manager): checksum = sha256 of the JSON without it. */
function checkpoint(n: number, at: string, files: string[]): { id: string; doc: Record<string, unknown> } {
  const id = `cp-0${n}-${STEP_NAMES[n - 1]}-20260302-${at.replace(/:/g, '')}00`;
  const doc: Record<string, unknown> = {
    id,
    session_id: GO_TEAM_ID,
    step_number: n,
    step_name: STEP_NAMES[n - 1],
    created_at: `2026-03-02T${at}:00Z`,
    state: { topic: 'ledger-api', phase: STEP_NAMES[n - 1], current_step: n, current_agent: 'go-coder-agent' },
    outputs: {},
    files: { created: files, modified: [], deleted: [] },
    git: { enabled: true, branch: GO_TEAM_BRANCH, commit_hash: commitOf(n), staged_files: [] },
  };
  doc.checksum = `sha256:${createHash('sha256').update(JSON.stringify(doc)).digest('hex')}`;
  doc.valid = true;
  return { id, doc };
}

export interface GoTeamOptions {
  /** Roll back from step 5 to step 3 at 11:10, after state.json was saved (11:00, still at step 5). */
  rollback?: boolean;
  /** recovery.json `git_state.uncommitted_changes`. */
  uncommitted?: string[] | false;
}

/**
 * A Go Team session interrupted in step 5 (testing), checkpoints of steps 1–4 (step 4 created
 * `internal/ledger/post.go`), recovery.json recommending the checkpoint of step 4 with its git
 * state. With `rollback`, the user then rolled back to step 3 (`*rollback:3`): the manifest and
 * registry say step 3, checkpoints 4 and 5 are invalidated, and state.json is the older save.
 */
export function writeGoTeam(root: string, o: GoTeamOptions = {}): string {
  const dir = `${GT}/${GO_TEAM_ID}`;
  const times = ['10:00', '10:10', '10:20', '10:30', '10:50'];
  const cps = [1, 2, 3, 4, ...(o.rollback ? [5] : [])].map((n) =>
    checkpoint(n, times[n - 1]!, n === 4 ? ['internal/ledger/post.go'] : []),
  );
  for (const c of cps) put(root, `${dir}/${c.id}.json`, c.doc);
  const [cp3, cp4, cp5] = [cps[2]!.id, cps[3]!.id, cps[4]?.id ?? null];
  const rb = o.rollback
    ? [
        {
          id: 'rb-001',
          timestamp: '2026-03-02T11:10:00Z',
          from_checkpoint: cp5,
          from_step: 5,
          to_checkpoint: cp3,
          to_step: 3,
          reason: 'the ledger schema was wrong',
        },
      ]
    : [];
  const step = o.rollback ? 3 : 5;
  const updated = o.rollback ? '2026-03-02T11:10:00Z' : '2026-03-02T11:00:00Z';
  put(root, `${GT}/sessions.json`, {
    version: '1.0.0',
    sessions: [
      {
        id: GO_TEAM_ID,
        topic: 'ledger-api',
        status: 'interrupted',
        created_at: '2026-03-02T10:00:00Z',
        updated_at: updated,
        current_step: step,
        current_checkpoint: o.rollback ? cp3 : cp4,
        progress: { steps_completed: step === 3 ? 3 : 4, total_steps: 9, percentage: step === 3 ? 33 : 44 },
        git_branch: GO_TEAM_BRANCH,
        resumable: true,
      },
    ],
    last_active_session: GO_TEAM_ID,
  });
  put(root, `${dir}/manifest.json`, {
    session_id: GO_TEAM_ID,
    topic: 'ledger-api',
    created_at: '2026-03-02T10:00:00Z',
    updated_at: updated,
    checkpoints: cps.map((c) => ({
      id: c.id,
      step: c.doc.step_number,
      step_name: c.doc.step_name,
      timestamp: c.doc.created_at,
      valid: !(o.rollback && (c.doc.step_number as number) > 3),
      ...(o.rollback && (c.doc.step_number as number) > 3 ? { invalidated_by: 'rb-001' } : {}),
    })),
    current_checkpoint: o.rollback ? cp3 : cp4,
    current_step: step,
    rollback_history: rb,
  });
  put(root, `${dir}/state.json`, {
    session_id: GO_TEAM_ID,
    saved_at: '2026-03-02T11:00:00Z',
    save_trigger: 'auto',
    state: { topic: 'ledger-api', phase: 'testing', current_step: 5, current_agent: 'go-tester-agent' },
    context: { last_action: 'Writing post_test.go', pending_tasks: [] },
    outputs: {},
    recovery_point: { checkpoint: o.rollback ? cp5 : cp4, actions_since_checkpoint: 6 },
  });
  put(root, `${dir}/recovery.json`, {
    session_id: GO_TEAM_ID,
    interrupted_at: updated,
    interrupt_reason: 'timeout',
    last_known_state: { step, agent: 'go-tester-agent', action: 'Running go test' },
    recovery_options: [
      {
        type: 'checkpoint',
        target: o.rollback ? cp3 : cp4,
        description: 'Resume from last checkpoint (safe)',
        data_loss: '6 actions since checkpoint',
      },
      {
        type: 'live_state',
        target: 'state.json',
        description: 'Resume from last auto-save (experimental)',
        data_loss: '~30 seconds of work',
      },
    ],
    recommended: 'checkpoint',
    auto_resume_enabled: true,
    git_state: {
      branch: GO_TEAM_BRANCH,
      last_commit: commitOf(o.rollback ? 3 : 4),
      uncommitted_changes: o.uncommitted ?? false,
    },
  });
  return GO_TEAM_ID;
}

export const BMIT_PROJECT = 'shop-api';

function bmitStep(
  name: string,
  agent: string,
  status: string,
  o: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    agent,
    status,
    sub_step: null,
    started: null,
    completed: null,
    artifacts: [],
    context_files_used: [],
    ...o,
  };
}

export interface BmitOptions {
  /** Write `00-session-state.json` as a torn file with no `.bak` (bmit: fresh from the template, log a recovery event). */
  corrupt?: boolean;
}

/**
 * A bmit project (seed 002, schema 3.0) under `agent-output/shop-api/`: step 1 complete with
 * its artifacts written both ways bmit writes them (project-relative `01-requirements.md`, the
 * docs' `agent-output/shop-api/01-scope.md`), step 2 in progress at `phase_2_waf`. The
 * artifacts exist in the project folder.
 */
export function writeBmit(root: string, o: BmitOptions = {}): string {
  const dir = `agent-output/${BMIT_PROJECT}`;
  put(root, `${dir}/01-requirements.md`, '# Requirements\n');
  put(root, `${dir}/01-scope.md`, '# Scope\n');
  put(root, `${dir}/02-architecture-assessment.md`, '# Architecture (draft)\n');
  if (o.corrupt) {
    put(root, `${dir}/00-session-state.json`, '{"schema_version": "3.0", "project": "shop-api", "steps": {"1": {"sta');
    return BMIT_PROJECT;
  }
  put(root, `${dir}/00-session-state.json`, {
    schema_version: '3.0',
    project: BMIT_PROJECT,
    iac_tool: 'Bicep',
    region: 'westeurope',
    branch: 'main',
    updated: '2026-03-02T10:30:00Z',
    current_step: 2,
    decisions: {},
    decision_log: [],
    open_findings: [],
    steps: {
      '1': bmitStep('Requirements', '02-Requirements', 'complete', {
        started: '2026-03-02T09:00:00Z',
        completed: '2026-03-02T09:40:00Z',
        artifacts: ['01-requirements.md', `agent-output/${BMIT_PROJECT}/01-scope.md`],
      }),
      '2': bmitStep('Architecture', '03-Architect', 'in_progress', {
        started: '2026-03-02T09:45:00Z',
        sub_step: 'phase_2_waf',
        artifacts: ['02-architecture-assessment.md'],
        context_files_used: ['01-requirements.md'],
      }),
      '3': bmitStep('Design', '04-Design', 'pending'),
      '3_5': bmitStep('Governance', '04g-Governance', 'pending'),
      '4': bmitStep('IaC Plan', '05-IaC-Planner', 'pending'),
      '5': bmitStep('IaC Code', '06-Bicep-CodeGen', 'pending'),
      '6': bmitStep('Deploy', '07-Deploy', 'pending'),
      '7': bmitStep('As-Built', '08-As-Built', 'pending'),
    },
  });
  return BMIT_PROJECT;
}

export const CCW_ID = 'WFS-ledger-sync';

/**
 * A CCW session (seed 004, principles shape) paused in IMPLEMENT: PLAN completed with its
 * documents (`IMPL_PLAN.md`, `TASK_BREAKDOWN.md`, relative to the session folder, where they
 * are), no `current_agent`, and `.task/` with impl-1 and impl-2 completed, impl-2.1 in
 * progress, impl-2.2 pending: CCW continues at impl-2.1.
 */
export function writeCcw(root: string): string {
  const dir = `.workflow/${CCW_ID}`;
  put(
    root,
    '.workflow/session_status.jsonl',
    `${JSON.stringify({ id: CCW_ID, status: 'paused', description: 'Ledger sync', created: '2026-03-02T09:00:00Z', directory: dir })}\n`,
  );
  put(root, `${dir}/IMPL_PLAN.md`, '# Plan\n');
  put(root, `${dir}/TASK_BREAKDOWN.md`, '# Tasks\n');
  put(root, `${dir}/TODO_LIST.md`, '- [x] impl-1\n- [ ] impl-2.1\n');
  put(root, `${dir}/workflow-session.json`, {
    session_id: CCW_ID,
    session_version: '2.0',
    project: 'Ledger sync',
    type: 'medium',
    current_phase: 'IMPLEMENT',
    status: 'paused',
    created_at: '2026-03-02T09:00:00Z',
    updated_at: '2026-03-02T11:00:00Z',
    checkpoints: {
      plan: {
        status: 'completed',
        documents: ['IMPL_PLAN.md', 'TASK_BREAKDOWN.md'],
        timestamp: '2026-03-02T09:30:00Z',
      },
      implement: {
        status: 'in_progress',
        agents_completed: ['code-developer'],
        current_agent: null,
        todos: { total: 4, completed: 2, in_progress: 1 },
        timestamp: '2026-03-02T10:00:00Z',
      },
      review: { status: 'pending', quality_checks: {} },
    },
    context_chain: [],
    state_transitions: [],
  });
  for (const [t, status] of [
    ['impl-1', 'completed'],
    ['impl-2', 'completed'],
    ['impl-2.1', 'in_progress'],
    ['impl-2.2', 'pending'],
  ] as const)
    put(root, `${dir}/.task/${t}.json`, { id: t, title: t, status });
  return CCW_ID;
}

/** CCW with IMPLEMENT completed and REVIEW in progress: the review is a required step. */
export function writeCcwInReview(root: string): string {
  const id = writeCcw(root);
  const f = path.join(root, `.workflow/${id}/workflow-session.json`);
  const doc = JSON.parse(fs.readFileSync(f, 'utf8'));
  doc.current_phase = 'REVIEW';
  doc.checkpoints.implement = {
    ...doc.checkpoints.implement,
    status: 'completed',
    todos: { total: 4, completed: 4 },
  };
  doc.checkpoints.review = { status: 'in_progress', quality_checks: {} };
  fs.writeFileSync(f, JSON.stringify(doc, null, 2));
  for (const t of ['impl-2.1', 'impl-2.2'])
    fs.writeFileSync(
      path.join(root, `.workflow/${id}/.task/${t}.json`),
      JSON.stringify({ id: t, status: 'completed' }),
    );
  return id;
}
