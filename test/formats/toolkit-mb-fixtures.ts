/**
 * Hand-written Maestro and BMAD session files for issue 27's "after import" rules, built from
 * the seed specifications (seed 000: Maestro session-management SKILL.md, frontmatter schema,
 * Resume Protocol, Retry Tracking; docs/formats/maestro.md: v1.6 JSON frontmatter, express
 * mode, requires_reconciliation; seed 003: BMAD session-manager instructions, token
 * deserialization, thresholds, savings). Not copies of the seed files.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Writes `files` (relative path → text) under `root`. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

export const MAESTRO_ERR_ID = '2026-05-04-invoice-export';

/**
 * Maestro (YAML era, `.gemini/state/active-session.md`): phase 3 failed with one unresolved
 * validation error and 1 of 2 retries used; token totals (40100 input) below the by_agent sum
 * (30100 + 14000 = 44100).
 */
export function maestroFailedWithError(): Record<string, string> {
  const phase = (id: number, name: string, status: string, agent: string, extra: string[] = []) =>
    [
      `  - id: ${id}`,
      `    name: "${name}"`,
      `    status: "${status}"`,
      `    agents: ["${agent}"]`,
      '    parallel: false',
      `    started: ${status === 'pending' ? 'null' : `"2026-05-04T0${8 + id}:05:00Z"`}`,
      `    completed: ${status === 'completed' ? `"2026-05-04T0${8 + id}:40:00Z"` : 'null'}`,
      `    blocked_by: [${id > 1 ? id - 1 : ''}]`,
      '    files_created: []',
      '    files_modified: []',
      '    files_deleted: []',
      ...extra,
    ].join('\n');
  const fm = [
    '---',
    `session_id: "${MAESTRO_ERR_ID}"`,
    'created: "2026-05-04T09:00:00Z"',
    'updated: "2026-05-04T11:30:00Z"',
    'status: "in_progress"',
    'design_document: null',
    'implementation_plan: null',
    'current_phase: 3',
    'total_phases: 4',
    'token_usage:',
    '  total_input: 40100',
    '  total_output: 9000',
    '  total_cached: 1000',
    '  by_agent:',
    '    coder: { input: 30100, output: 6000, cached: 1000 }',
    '    tester: { input: 14000, output: 3000, cached: 0 }',
    'phases:',
    phase(1, 'Schema', 'completed', 'coder', ['    errors: []', '    retry_count: 0']),
    phase(2, 'Exporter', 'completed', 'coder', ['    errors: []', '    retry_count: 0']),
    phase(3, 'Tests', 'failed', 'tester', [
      '    errors:',
      '      - agent: "tester"',
      '        timestamp: "2026-05-04T11:20:00Z"',
      '        type: "validation"',
      '        message: "3 of 12 tests fail: rounding of VAT lines"',
      '        resolution: "pending"',
      '        resolved: false',
      '    retry_count: 1',
    ]),
    phase(4, 'Docs', 'pending', 'technical-writer', ['    errors: []', '    retry_count: 0']),
    '---',
    '',
    '# Invoice Export Orchestration Log',
    '',
  ].join('\n');
  return { '.gemini/state/active-session.md': fm };
}

export const MAESTRO_REC_ID = '2026-05-06-rate-limit';

/**
 * Maestro v1.6 (JSON frontmatter under `docs/maestro/`), express mode: phase 1 completed with
 * `requires_reconciliation: true`, phase 2 in progress; `status` as given (in_progress, or
 * completed: done but not archived).
 */
export function maestroReconcile(status: 'in_progress' | 'completed', phase2 = 'in_progress'): Record<string, string> {
  const doc = {
    session_id: MAESTRO_REC_ID,
    task: 'Add rate limiting to the public API',
    created: '2026-05-06T08:00:00Z',
    updated: '2026-05-06T09:10:00Z',
    status,
    workflow_mode: 'express',
    design_document: null,
    implementation_plan: null,
    current_phase: 2,
    total_phases: 2,
    token_usage: {
      total_input: 1200,
      total_output: 300,
      total_cached: 0,
      by_agent: { coder: { input: 1200, output: 300, cached: 0 } },
    },
    phases: [
      {
        id: 1,
        name: 'Limiter',
        status: 'completed',
        agents: ['coder'],
        parallel: false,
        started: '2026-05-06T08:05:00Z',
        completed: '2026-05-06T08:50:00Z',
        blocked_by: [],
        files_created: ['src/api/limiter.ts'],
        files_modified: [],
        files_deleted: [],
        planned_files: ['src/api/limiter.ts', 'src/api/server.ts'],
        requires_reconciliation: true,
        errors: [],
        retry_count: 0,
      },
      {
        id: 2,
        name: 'Wire in',
        status: phase2,
        agents: ['coder'],
        parallel: false,
        started: '2026-05-06T08:55:00Z',
        completed: phase2 === 'completed' ? '2026-05-06T09:05:00Z' : null,
        blocked_by: [1],
        files_created: [],
        files_modified: ['src/api/server.ts'],
        files_deleted: [],
        requires_reconciliation: phase2 === 'in_progress',
        errors: [],
        retry_count: 0,
      },
    ],
  };
  return {
    'docs/maestro/state/active-session.md': `---\n${JSON.stringify(doc, null, 2)}\n---\n\n# Rate limit Orchestration Log\n`,
  };
}

export const BMAD_ID = 'SES202605-ACME-BILLING';

/**
 * BMAD (`_bmad-output/sessions/`): the active session, budget 100000, `current` as given,
 * `saved` 50000; an analyst agent completed and a dev agent failed.
 */
export function bmadSession(current: number): Record<string, string> {
  const yaml = [
    `session_id: "${BMAD_ID}"`,
    'created: "2026-05-10T08:00:00Z"',
    'last_updated: "2026-05-10T11:00:00Z"',
    'status: "active"',
    'client: "ACME"',
    'project: "BILLING"',
    'prefix: "SES"',
    'tokens:',
    '  max: 100000',
    '  initial: 0',
    `  current: ${current}`,
    `  peak: ${current + 2000}`,
    '  saved: 50000',
    'agents_spawned:',
    '  - id: "agent-a1"',
    '    type: "analyst"',
    '    started: "2026-05-10T08:10:00Z"',
    '    completed: "2026-05-10T08:40:00Z"',
    '    tokens_used: 30000',
    '    output_file: "_bmad-output/temp/analyst-a1.md"',
    '    status: "completed"',
    '  - id: "agent-d2"',
    '    type: "dev"',
    '    started: "2026-05-10T09:00:00Z"',
    '    completed: "2026-05-10T09:30:00Z"',
    '    tokens_used: 20000',
    '    output_file: "_bmad-output/temp/dev-d2.md"',
    '    status: "failed"',
    'artifacts: []',
    'milestones:',
    '  - name: "Requirements Complete"',
    '    completed: "2026-05-10T08:45:00Z"',
    'context_summary: |',
    '  Billing rework for ACME.',
    '',
  ].join('\n');
  return {
    [`_bmad-output/sessions/${BMAD_ID}.yaml`]: yaml,
    '_bmad-output/sessions/active-session.yaml': `session_id: "${BMAD_ID}"\n`,
    '_bmad-output/temp/analyst-a1.md': '# analyst\n',
    '_bmad-output/temp/dev-d2.md': '# dev (partial)\n',
  };
}
