/**
 * CCW's task files (`.task/impl-*.json`, at most three levels: impl-1.2.3): their statuses in
 * task order, summarised on the IMPLEMENT unit, and the task-level resume point.
 */
import type { ReadResult, SafeDir } from '../safe-dir.js';
import type { ForeignSession, ForeignUnit, FormatProblem } from '../types.js';
import { obj, parseDocument, problem, str } from '../util.js';
import { taskToResume } from './facts.js';
import { type SessionDoc, TASK_FILES_KEY } from './session-file.js';

/** Most task files read per session. */
const MAX_TASK_FILES = 500;
/** CCW's task hierarchy is at most three levels deep (impl-1.2.3). */
const MAX_TASK_DEPTH = 3;

const TASK_RE = /^impl-(\d+(?:\.\d+)*)\.json$/;

export /** The `.task/impl-*` statuses in task order (impl-1.2 before impl-1.10), summarised on the implement unit. */
async function taskStatusesOf(
  dir: SafeDir,
  folder: string,
  id: string,
  sd: SessionDoc,
  io: { reads: ReadResult[]; problems: FormatProblem[]; documents: Record<string, unknown> },
): Promise<Array<[string, string]>> {
  const taskStatuses: Array<[string, string]> = [];
  const taskSummary = await readTasks(dir, folder, id, io.reads, io.problems, io.documents, taskStatuses);
  const byTaskId = (x: string): number[] => x.slice(5).split('.').map(Number);
  taskStatuses.sort(([a], [b]) => {
    const [x, y] = [byTaskId(a), byTaskId(b)];
    for (let k = 0; k < Math.max(x.length, y.length); k++)
      if ((x[k] ?? -1) !== (y[k] ?? -1)) return (x[k] ?? -1) - (y[k] ?? -1);
    return 0;
  });
  if (taskSummary) {
    const impl = sd.units.find((u) => u.id.toLowerCase() === 'implement');
    if (impl) impl.metadata[TASK_FILES_KEY] = taskSummary;
  }
  return taskStatuses;
}

export /**
 * Where CCW resumes: the current unit, and at task level the `.task/` task in progress (else
 * the first pending one) when that unit is IMPLEMENT (resume_implementation, "skip_completed_continue_sequence").
 */
function positionOf(
  sd: SessionDoc,
  status: ForeignSession['status'],
  taskStatuses: Array<[string, string]>,
  advice: ForeignSession['resume'],
): ForeignSession['position'] {
  const posUnit: ForeignUnit | undefined =
    sd.units.find((u) => u.id === sd.currentUnit) ??
    sd.units.find((u) => u.status === 'in_progress') ??
    sd.units.find((u) => u.status === 'pending' || u.status === 'failed');
  const task =
    status !== 'completed' && posUnit && posUnit.id.toLowerCase() === 'implement' ? taskToResume(taskStatuses) : null;
  if (task && advice.unitId === posUnit!.id)
    advice.reason += ` Resume at task ${task.task} (${task.status === 'pending' ? 'the first pending task' : 'in progress'}).`;
  return { unitId: posUnit?.id ?? null, subStep: posUnit?.subStep ?? null, ...(task ? { task: task.task } : {}) };
}

async function readTasks(
  dir: SafeDir,
  folder: string,
  id: string,
  reads: ReadResult[],
  problems: FormatProblem[],
  documents: Record<string, unknown>,
  statuses: Array<[string, string]> = [],
): Promise<Record<string, unknown> | null> {
  const entries = (await dir.list(`${folder}/.task`)).filter((e) => e.kind === 'file' && TASK_RE.test(e.name));
  if (entries.length === 0) return null;
  const byStatus: Record<string, number> = {};
  const ids: string[] = [];
  for (const e of entries.slice(0, MAX_TASK_FILES)) {
    const num = TASK_RE.exec(e.name)![1]!;
    if (num.split('.').length > MAX_TASK_DEPTH) {
      problems.push(
        problem(
          'BAD_VALUE',
          'warning',
          `${e.path} is nested ${num.split('.').length} levels deep; CCW allows at most ${MAX_TASK_DEPTH} (impl-1.2.3). It was not read.`,
          {
            sessionId: id,
            path: e.path,
            details: { field: 'task id', value: `impl-${num}`, maxDepth: MAX_TASK_DEPTH },
          },
        ),
      );
      continue;
    }
    const r = await dir.read(e.path);
    reads.push(r);
    let status = 'unknown';
    if (r.kind === 'ok') {
      const p = parseDocument(r, { sessionId: id });
      if (p.ok) {
        status = str(p.value.status) ?? str(obj(p.value.meta).status) ?? 'pending';
        documents[e.path] = p.value;
      } else {
        problems.push({ ...p.problem, severity: 'warning' });
        status = 'unreadable';
      }
    }
    ids.push(`impl-${num}`);
    statuses.push([`impl-${num}`, status]);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  if (entries.length > MAX_TASK_FILES)
    problems.push(
      problem(
        'BAD_VALUE',
        'info',
        `${folder}/.task holds ${entries.length} task files; the first ${MAX_TASK_FILES} were read.`,
        { sessionId: id, path: `${folder}/.task` },
      ),
    );
  const key = (id: string) => id.slice(5).split('.').map(Number);
  ids.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    for (let i = 0; i < Math.max(x.length, y.length); i++)
      if ((x[i] ?? -1) !== (y[i] ?? -1)) return (x[i] ?? -1) - (y[i] ?? -1);
    return 0;
  });
  return { total: ids.length, byStatus, ids };
}
