/**
 * Writes a BMAD session YAML by editing the file it came from in place (the `yaml` library's
 * Document API): comments, key order, quoting and blank lines of everything baton leaves as
 * it was are kept; a value baton changes keeps the quoting and comment of the one it
 * replaces. Every string baton writes anew is quoted when a YAML 1.1 reader (PyYAML, which
 * BMAD's Python tooling uses) would load it as something else: a timestamp as a date, `yes`
 * as a boolean, `1:30` as a number.
 */
import type { Document, Node } from 'yaml';
import { yamlModule } from '../yaml.js';

type Y = ReturnType<typeof yamlModule>;

/** True when a YAML 1.1 reader would not load `s`, written plain, as that same string. */
function ambiguousIn11(Y: Y, s: string): boolean {
  try {
    return Y.parse(s, { version: '1.1' }) !== s;
  } catch {
    return true;
  }
}

/** A node for `value`, its strings quoted where YAML 1.1 would read them otherwise. */
function fresh(Y: Y, doc: Document, value: unknown): unknown {
  const n = doc.createNode(value);
  Y.visit(n as Node, {
    Scalar(_k, s) {
      if (typeof s.value === 'string' && ambiguousIn11(Y, s.value)) s.type = 'QUOTE_DOUBLE';
    },
  });
  return n;
}

function plainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

function keyOf(Y: Y, k: unknown): string {
  return Y.isScalar(k) ? String(k.value) : String(k);
}

/** `node` brought to `value`, reusing every node whose value baton did not change. */
function sync(Y: Y, doc: Document, node: unknown, value: unknown): unknown {
  if (plainObject(value) && Y.isMap(node)) {
    node.items = node.items.filter((it) => Object.hasOwn(value, keyOf(Y, it.key)));
    for (const [k, v] of Object.entries(value)) {
      const pair = node.items.find((it) => keyOf(Y, it.key) === k);
      if (pair) pair.value = sync(Y, doc, pair.value, v) as typeof pair.value;
      else node.items.push(doc.createPair(fresh(Y, doc, k), fresh(Y, doc, v)) as (typeof node.items)[number]);
    }
    return node;
  }
  if (Array.isArray(value) && Y.isSeq(node)) {
    node.items = value.map((v, i) => (i < node.items.length ? sync(Y, doc, node.items[i], v) : fresh(Y, doc, v)));
    return node;
  }
  if (Y.isScalar(node) && node.value === value) return node;
  const n = fresh(Y, doc, value);
  if (Y.isNode(node) && Y.isNode(n)) {
    n.comment = node.comment;
    n.commentBefore = node.commentBefore;
    n.spaceBefore = node.spaceBefore;
    // A string replacing a quoted string keeps its quotes.
    if (Y.isScalar(node) && Y.isScalar(n) && typeof value === 'string' && node.type !== 'PLAIN' && node.type)
      n.type = node.type;
  }
  return n;
}

/**
 * The YAML text of `value`: `source` edited in place when it is a readable YAML mapping (see
 * the module comment), else a new document with the same quoting rule.
 */
export function renderYaml(value: Record<string, unknown>, source: string | null): string {
  const Y = yamlModule();
  const bom = source?.startsWith('\uFEFF') ? '\uFEFF' : '';
  const crlf = source?.includes('\r\n') === true;
  const doc = source === null ? null : Y.parseDocument(source.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n'));
  let text: string;
  if (doc && doc.errors.length === 0 && Y.isMap(doc.contents)) {
    doc.contents = sync(Y, doc, doc.contents, value) as typeof doc.contents;
    text = doc.toString({ lineWidth: 0 });
  } else {
    const d = new Y.Document();
    d.contents = fresh(Y, d, value) as typeof d.contents;
    text = d.toString({ lineWidth: 0 });
  }
  return bom + (crlf ? text.replace(/\n/g, '\r\n') : text);
}
