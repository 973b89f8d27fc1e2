import type { SessionSummary } from '../domain/summary.js';

const ID_PREFIX = '{"id":"';
const IN_DOUBT = ',"inDoubt":true';

/**
 * A registry row kept as its JSON text (`JSON.stringify` of a {@link SessionSummary}, which
 * puts `id` first). `list --json` over thousands of sessions filters, sorts and prints rows
 * without parsing or re-serialising them; the few fields it needs are read from the text.
 * That is safe because a key pattern such as `,"status":"` cannot occur inside a JSON string
 * value, where every quote is escaped.
 */
export class RowText {
  private parsed: SessionSummary | null = null;
  private archivedFlag: boolean | undefined;
  private statusValue: string | undefined;

  constructor(readonly json: string) {}

  /** A row from a summary object. */
  static of(summary: SessionSummary): RowText {
    const { id, ...rest } = summary;
    const r = new RowText(JSON.stringify({ id, ...rest }));
    r.parsed = summary;
    return r;
  }

  /** True when the text has the shape the fast field readers rely on. */
  get wellFormed(): boolean {
    return (
      this.json.startsWith(ID_PREFIX) &&
      this.json.endsWith('}') &&
      this.json.indexOf('"', ID_PREFIX.length) > ID_PREFIX.length
    );
  }

  get id(): string {
    if (!this.json.startsWith(ID_PREFIX)) return this.summary.id;
    return this.json.slice(ID_PREFIX.length, this.json.indexOf('"', ID_PREFIX.length));
  }

  get status(): string {
    this.statusValue ??= this.stringField('status') ?? this.summary.status;
    return this.statusValue;
  }

  get createdAt(): string {
    return this.stringField('createdAt') ?? this.summary.createdAt;
  }

  get archived(): boolean {
    // Read once: list checks it for every row more than once.
    if (this.archivedFlag === undefined) {
      const at = this.json.indexOf(',"archived":');
      this.archivedFlag = at === -1 ? this.summary.archived : this.json.startsWith('true', at + 12);
    }
    return this.archivedFlag;
  }

  /**
   * True for the marker a file-store writer logs before an append that changes the row
   * ({@link RowText.inDoubt}): the row after it is not written yet, or the writer died first.
   */
  get inDoubt(): boolean {
    // Read where the flag would be, just past the id's closing quote: no copy of the id.
    return this.json.startsWith(IN_DOUBT, this.json.indexOf('"', ID_PREFIX.length) + 1);
  }

  /**
   * The marker saying that session `id`'s row may be behind its journal from `revision` on:
   * `{"id":…,"inDoubt":true,"revision":N}`, the flag right after the id so that
   * {@link inDoubt} reads it without a search. Its revision is the one the journal had, so a
   * row derived from the journal (same revision or later) replaces it.
   */
  static inDoubt(id: string, revision: number): RowText {
    return new RowText(`${JSON.stringify({ id }).slice(0, -1)}${IN_DOUBT},"revision":${revision}}`);
  }

  /** When the session's lease expires, or null (no lease, or a row from before leases). */
  get leaseExpiresAt(): string | null {
    const key = ',"leaseExpiresAt":';
    const at = this.json.indexOf(key);
    if (at === -1 || this.json[at + key.length] !== '"') return null;
    return this.stringField('leaseExpiresAt') ?? this.summary.leaseExpiresAt ?? null;
  }

  /** The row as an object (parsed once, on demand). */
  get summary(): SessionSummary {
    this.parsed ??= JSON.parse(this.json) as SessionSummary;
    return this.parsed;
  }

  /** This row with `archived` set. */
  withArchived(archived: boolean): RowText {
    return RowText.of({ ...this.summary, archived });
  }

  private stringField(name: string): string | undefined {
    const key = `,"${name}":"`;
    const at = this.json.indexOf(key);
    if (at === -1) return undefined;
    const from = at + key.length;
    const end = this.json.indexOf('"', from);
    // Values read this way (status, ISO times) hold no escapes; anything else is parsed.
    const v = this.json.slice(from, end);
    return v.includes('\\') ? undefined : v;
  }
}

/** Serialises rows as a JSON array with one row per line. */
export function rowsToJsonArray(rows: RowText[]): string {
  return rows.length ? `[\n${rows.map((r) => r.json).join(',\n')}\n]` : '[]';
}
