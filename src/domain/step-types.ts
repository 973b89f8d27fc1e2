/** The shapes of durable steps (src/domain/durable-steps.ts), apart so that events.ts and state.ts can name them without an import cycle. */

/** Who runs (or ran) a step: the process, its machine and boot, and the run it was made in. */
export interface StepRunner {
  pid: number;
  host: string;
  boot: string | null;
  runId: string | null;
  agent: string | null;
}

/** A recorded error of a step (the error the last attempt threw). */
export interface StepError {
  message: string;
  name: string;
  code: string | null;
}

/** A result kept beside the journal (too large for an event): its sha256 and size in bytes. */
export interface StepResultRef {
  sha256: string;
  size: number;
}

/** Payloads of the step events (see events.ts). */
export interface StepEventData {
  started: { key: string; phaseId: string | null; claim: number; runner: StepRunner; takeover: boolean };
  completed: {
    key: string;
    phaseId: string | null;
    claim: number;
    attempts: number;
    size: number;
    result?: unknown;
    resultRef?: StepResultRef;
  };
  failed: { key: string; phaseId: string | null; claim: number; attempts: number; error: StepError };
}

/** A durable step as the session holds it. */
export interface DurableStep {
  key: string;
  phaseId: string | null;
  status: 'running' | 'completed' | 'failed';
  /** 1 for the first runner, +1 for each takeover or re-run. */
  claim: number;
  /** Attempts the last claim made (0 while running). */
  attempts: number;
  runner: StepRunner;
  startedAt: string;
  endedAt: string | null;
  /** The JSON result's size in bytes; null until completed. */
  size: number | null;
  /** The result, when kept in the event (absent: none, or kept beside the journal, see `resultRef`). */
  result?: unknown;
  resultRef?: StepResultRef;
  error?: StepError;
}
