/** The resume plan (as `baton resume` prints it, with its recommendation) and the handoff document rendered. */
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'preact/hooks';
import type { ResumeView } from '../../manager/index.js';

/** The recommendation, for the banner of a session that needs resuming. */
export function Recommendation({ resume }: { resume: ResumeView | null }) {
  const r = resume?.plan.recovery.recommended;
  if (!resume) return <p class="muted">Working out the resume plan…</p>;
  if (!r) return <p class="muted">Nothing to resume.</p>;
  return (
    <p class="recommend" data-recommended={r.kind}>
      Recommended: <strong>resume from {r.from}</strong> (<code>baton resume --apply --from {r.from}</code>): {r.reason}
    </p>
  );
}

/** The resume section's content. */
export function Resume({ resume, error }: { resume: ResumeView | null; error: string | null }) {
  // Session text (titles, notes, errors) is input like any other: the rendered Markdown is sanitised.
  const html = useMemo(
    () => (resume ? DOMPurify.sanitize(marked.parse(resume.handoff, { async: false })) : ''),
    [resume?.handoff],
  );
  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!resume) return <p class="muted">Loading…</p>;
  return (
    <div class="resume">
      <Recommendation resume={resume} />
      {resume.plan.warnings.length ? (
        <ul class="warn">
          {resume.plan.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      ) : null}
      <details>
        <summary>Resume plan (text)</summary>
        <pre class="plan-text">{resume.text}</pre>
      </details>
      <details open>
        <summary>Handoff</summary>
        <article class="markdown" dangerouslySetInnerHTML={{ __html: html }} />
      </details>
    </div>
  );
}
