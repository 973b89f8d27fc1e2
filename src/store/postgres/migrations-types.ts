/** One step of the schema's history; `sql` gets the quoted schema name. Never edit a released step: add one. */
export interface Migration {
  version: number;
  name: string;
  sql: (s: string) => string;
}
