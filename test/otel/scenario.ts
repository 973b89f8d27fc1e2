/**
 * The scripted workflow the telemetry tests export: three phases, one of which fails (with a
 * recorded error) and is retried, tokens on two agents, a decision, a milestone, a run that
 * dies (the session is interrupted, with its cause) and a resume, then the end.
 */
import type { Workspace } from '../cli/helpers.js';

/** Runs the workflow in `ws` as session `id`. */
export async function scriptedWorkflow(ws: Workspace, id = 'wf'): Promise<void> {
  const b = (...args: string[]) => ws.ok([...args, '--session', id]);
  await ws.ok(['start', 'Ship it', '--id', id, '--phases', 'plan,build,test']);
  await b('phase', 'start', 'plan', '--agent', 'planner');
  await b(
    'tokens',
    'add',
    '--agent',
    'planner',
    '--phase',
    'plan',
    '--model',
    'claude-sonnet-4',
    '--input',
    '1200',
    '--output',
    '300',
    '--cached',
    '500',
    '--cache-write',
    '40',
  );
  await b(
    'decision',
    'add',
    '--title',
    'Language',
    '--choice',
    'TypeScript',
    '--rationale',
    'the team knows it',
    '--alternative',
    'Go',
    '--phase',
    'plan',
  );
  await b('phase', 'complete', 'plan');
  await b('phase', 'start', 'build', '--agent', 'builder');
  await b(
    'tokens',
    'add',
    '--agent',
    'builder',
    '--phase',
    'build',
    '--model',
    'gpt-5',
    '--input',
    '800',
    '--output',
    '200',
  );
  await b('error', 'add', '--phase', 'build', '--type', 'test_failure', '--message', '3 tests fail');
  await b('phase', 'fail', 'build', '--reason', 'tests fail');
  await b('phase', 'retry', 'build', '--agent', 'builder');
  // A run that dies: the session is interrupted with the run's cause, then resumed.
  const run = await ws.run([
    'run',
    '--session',
    id,
    '--agent',
    'builder',
    '--',
    process.execPath,
    '-e',
    'process.exit(3)',
  ]);
  if (run.code !== 3) throw new Error(`the dying run exited ${run.code}: ${run.stderr}`);
  const resumed = await ws.run(['resume', id, '--apply']);
  if (resumed.code !== 0) throw new Error(`resume --apply exited ${resumed.code}: ${resumed.stderr}`);
  await b(
    'tokens',
    'add',
    '--agent',
    'builder',
    '--phase',
    'build',
    '--model',
    'gpt-5',
    '--input',
    '400',
    '--output',
    '90',
    '--cached',
    '100',
  );
  await b('milestone', 'add', 'Green build');
  await b('phase', 'complete', 'build');
  await b('phase', 'start', 'test');
  await b('phase', 'complete', 'test');
  await b('complete');
}
