/** The session's records: errors with their resolution, decisions with their rationale, findings, milestones, notes, artifacts, files, checkpoints. */
import type { ResumeView, SessionPage } from '../../manager/index.js';
import { Empty, Hash, num, Time } from './format.js';

/** Errors, resolved or not, newest last. */
export function Errors({ page }: { page: SessionPage }) {
  const errors = page.view.phases.flatMap((p) => p.errors);
  if (!errors.length) return <Empty what="errors" />;
  return (
    <table class="compact responsive">
      <thead>
        <tr>
          <th scope="col">error</th>
          <th scope="col">phase</th>
          <th scope="col">type</th>
          <th scope="col">message</th>
          <th scope="col">resolution</th>
        </tr>
      </thead>
      <tbody>
        {errors.map((e) => (
          <tr key={e.id} class={e.resolved ? 'resolved' : 'open'} data-error={e.id}>
            <td data-label="error">
              {e.id} <Time iso={e.time} />
            </td>
            <td data-label="phase">{e.phaseId}</td>
            <td data-label="type">{e.type}</td>
            <td data-label="message">{e.message}</td>
            <td data-label="resolution">{e.resolved ? <>✓ {e.resolution}</> : <span class="warn">unresolved</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Decisions, findings, milestones, notes and artifacts. */
export function Records({ page }: { page: SessionPage }) {
  const v = page.view;
  return (
    <div class="records">
      <h3>Decisions</h3>
      {v.decisions.length ? (
        <ul class="plain">
          {v.decisions.map((d) => (
            <li key={d.id} data-decision={d.id}>
              <strong>{d.title}</strong>: {d.choice}
              {d.rationale ? <div class="muted">because {d.rationale}</div> : null}
              {d.alternatives.length ? <div class="muted">instead of {d.alternatives.join(', ')}</div> : null}
            </li>
          ))}
        </ul>
      ) : (
        <Empty what="decisions" />
      )}
      <h3>Findings</h3>
      {v.findings.length ? (
        <ul class="plain">
          {v.findings.map((f) => (
            <li key={f.id}>
              {f.severity ? <span class={`badge sev-${f.severity}`}>{f.severity}</span> : null} {f.text}{' '}
              {f.phaseId ? <span class="muted">({f.phaseId})</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <Empty what="findings" />
      )}
      <h3>Milestones</h3>
      {v.milestones.length ? (
        <ul class="plain">
          {v.milestones.map((m) => (
            <li key={m.id}>
              {m.done ? '✓' : '○'} {m.title} {m.targetDate ? <span class="muted">target {m.targetDate}</span> : null}{' '}
              {m.doneAt ? <Time iso={m.doneAt} /> : null}
            </li>
          ))}
        </ul>
      ) : (
        <Empty what="milestones" />
      )}
      {v.notes.length ? (
        <>
          <h3>Notes</h3>
          <ul class="plain">
            {v.notes.map((n) => (
              <li key={n.id}>{n.text}</li>
            ))}
          </ul>
        </>
      ) : null}
      {v.artifacts.length ? (
        <>
          <h3>Artifacts</h3>
          <ul class="plain">
            {v.artifacts.map((a) => (
              <li key={a.id}>
                <code>{a.path}</code> {a.kind ? <span class="muted">{a.kind}</span> : null} {a.description}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

/** Files per phase with their hashes; those the resume plan finds changed outside the session are flagged. */
export function Files({ page, resume }: { page: SessionPage; resume: ResumeView | null }) {
  const checks = new Map<string, string>();
  for (const g of resume?.plan.files.byPhase ?? [])
    for (const f of g.files) if (f.kind !== 'unchanged') checks.set(`${g.phaseId ?? ''}\u0000${f.path}`, f.kind);
  const groups = page.view.phases.filter((p) => p.files.length);
  const newFiles = resume?.plan.files.newFiles ?? [];
  if (!groups.length && !newFiles.length) return <Empty what="files" />;
  // "Flagged below" only when a row below is flagged: a plan may report changes of files no row shows.
  const flagged = groups.reduce((n, p) => n + p.files.filter((f) => checks.has(`${p.id}\u0000${f.path}`)).length, 0);
  return (
    <div>
      {flagged ? (
        <p class="warn" role="note" data-flagged={flagged}>
          {flagged === 1 ? 'A file' : `${num(flagged)} files`} changed outside the session since{' '}
          {flagged === 1 ? 'it was' : 'they were'} recorded (flagged below).
        </p>
      ) : null}
      {newFiles.length ? (
        <p class="warn" role="note" data-new-files={newFiles.length}>
          New files the session has not recorded:{' '}
          {newFiles.map((f, i) => (
            <>
              {i ? ', ' : ''}
              <code key={f}>{f}</code>
            </>
          ))}
          .
        </p>
      ) : null}
      {groups.map((p) => (
        <details key={p.id} open={p.files.length <= 20}>
          <summary>
            {p.id} <span class="muted">({num(p.files.length)} files)</span>
          </summary>
          <table class="compact responsive">
            <thead>
              <tr>
                <th scope="col">path</th>
                <th scope="col">action</th>
                <th scope="col">sha256</th>
                <th scope="col">size</th>
                <th scope="col">now</th>
              </tr>
            </thead>
            <tbody>
              {p.files.map((f) => {
                const kind = checks.get(`${p.id}\u0000${f.path}`);
                return (
                  <tr key={f.path} data-file={f.path} data-outside={kind ?? ''} class={kind ? 'flagged' : ''}>
                    <td data-label="path">
                      <code>{f.path}</code>
                    </td>
                    <td data-label="action">{f.action}</td>
                    <td data-label="sha256">
                      <Hash sha={f.sha256} />
                    </td>
                    <td data-label="size">{f.size === null ? '—' : num(f.size)}</td>
                    <td data-label="now">
                      {kind ? (
                        <span class="warn">⚠ {kind} outside the session</span>
                      ) : resume ? (
                        <span class="muted">as recorded</span>
                      ) : (
                        '…'
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </details>
      ))}
    </div>
  );
}

/** Checkpoints, newest last, with validity and whether a restore superseded them. */
export function Checkpoints({ page }: { page: SessionPage }) {
  if (!page.checkpoints.length) return <Empty what="checkpoints" />;
  return (
    <table class="compact responsive">
      <thead>
        <tr>
          <th scope="col">checkpoint</th>
          <th scope="col">revision</th>
          <th scope="col">taken</th>
          <th scope="col">state</th>
        </tr>
      </thead>
      <tbody>
        {page.checkpoints.map((c) => (
          <tr key={c.id} data-checkpoint={c.id}>
            <td data-label="checkpoint">
              {c.name} <span class="muted mono">{c.id}</span>
            </td>
            <td data-label="revision">{c.revision ?? '—'}</td>
            <td data-label="taken">
              <Time iso={c.createdAt || null} />
            </td>
            <td data-label="state">
              {!c.valid ? <span class="warn">damaged: {c.problem}</span> : c.superseded ? 'superseded' : 'valid'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
