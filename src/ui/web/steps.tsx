/** The session's durable steps (`manager.steps`): how each stands, as the handoff and `baton status` say it. */
import type { SessionPage } from '../../manager/index.js';

/** A table of the durable steps, shown on the overview only when the session has some. */
export function DurableSteps({ page }: { page: SessionPage }) {
  if (!page.steps.length) return null;
  return (
    <>
      <h3>Durable steps</h3>
      <table class="compact responsive" data-testid="durable-steps">
        <thead>
          <tr>
            <th scope="col">step</th>
            <th scope="col">phase</th>
            <th scope="col">status</th>
            <th scope="col">how it stands</th>
          </tr>
        </thead>
        <tbody>
          {page.steps.map((d) => (
            <tr key={`${d.phaseId ?? ''}/${d.key}`} data-step={d.key} data-status={d.status}>
              <td data-label="step" class="mono">
                {d.key}
              </td>
              <td data-label="phase">{d.phaseId ?? '—'}</td>
              <td data-label="status" class={`s-${d.status === 'running' ? 'active' : d.status}`}>
                {d.status}
              </td>
              <td data-label="how it stands">{d.outcome}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
