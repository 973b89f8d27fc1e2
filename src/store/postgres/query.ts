/** Runs one statement (the store's prepared-statement path, with its error mapping). */
export type Query = <R extends Record<string, unknown>>(
  text: string,
  values?: unknown[],
) => Promise<{ rows: R[]; rowCount: number }>;
