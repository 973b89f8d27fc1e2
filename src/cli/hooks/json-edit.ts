import type { Node, ParseError } from 'jsonc-parser';
import { parseTree, printParseErrorCode } from 'jsonc-parser';

/**
 * Text-level edits of a JSON (or JSON-with-comments) document that touch only the bytes they
 * must: a value is inserted, replaced or removed and every other byte of the file (key order,
 * spacing, comments, line ends) stays as it was. jsonc-parser gives the syntax tree with
 * offsets; the edits are written here because its own formatter re-indents whole lines around
 * an edit, which would rewrite the user's neighbouring entries.
 */

/** A parsed document: its text, tree and layout conventions. */
export interface JsonDoc {
  text: string;
  root: Node;
  /** One level of indentation as found in the file ("\t" or N spaces). */
  unit: string;
  eol: string;
}

/** Why a text did not parse: a message with the line and column of the first error. */
export interface JsonSyntaxProblem {
  message: string;
  line: number;
  column: number;
}

/** Line (1-based) and column (1-based) of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/**
 * Parses `text`; returns the document, or the first syntax problem. Comments are accepted
 * only when `comments` is true (the CLI reading the file accepts them); a trailing comma
 * never is.
 */
export function parseJsonDoc(text: string, comments: boolean): JsonDoc | JsonSyntaxProblem {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, {
    disallowComments: !comments,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (first || !root) {
    const at = first ? lineColumn(text, first.offset) : { line: 1, column: 1 };
    const what = first ? describeError(printParseErrorCode(first.error)) : 'the file holds no JSON value';
    return { message: what, ...at };
  }
  return { text, root, unit: indentUnit(text), eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function describeError(code: string): string {
  const words: Record<string, string> = {
    InvalidCommentToken: 'a comment, which this file may not hold',
    CommaExpected: 'a missing comma',
    ValueExpected: 'a missing value (a trailing comma?)',
    PropertyNameExpected: 'a missing property name (a trailing comma?)',
    CloseBraceExpected: 'a missing }',
    CloseBracketExpected: 'a missing ]',
    EndOfFileExpected: 'text after the end of the JSON value',
  };
  return words[code] ?? code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The file's indentation unit: a tab, or the smallest indent used, default two spaces. */
function indentUnit(text: string): string {
  let min = 0;
  for (const m of text.matchAll(/\n([ \t]+)\S/g)) {
    const ws = m[1] ?? '';
    if (ws.startsWith('\t')) return '\t';
    if (!min || ws.length < min) min = ws.length;
  }
  return ' '.repeat(min || 2);
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

/** True when `offset` is the first non-blank character of its line. */
function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*$/.test(text.slice(start, offset));
}

/** `value` as pretty JSON whose continuation lines start with `indent`. */
function render(doc: JsonDoc, value: unknown, indent: string): string {
  return JSON.stringify(value, null, doc.unit)
    .split('\n')
    .join(doc.eol + indent);
}

/** One replacement of a range of the text. */
export interface TextEdit {
  offset: number;
  length: number;
  content: string;
}

/** Applies one edit. */
export function applyEdit(text: string, e: TextEdit): string {
  return text.slice(0, e.offset) + e.content + text.slice(e.offset + e.length);
}

/** The member of an object node named `key`, as [property node, value node]. */
export function member(obj: Node, key: string): { prop: Node; value: Node } | null {
  for (const prop of obj.children ?? []) {
    const [k, v] = prop.children ?? [];
    if (k?.value === key && v) return { prop, value: v };
  }
  return null;
}

/** The children of a container as the nodes to edit (an object's property nodes, an array's values). */
function items(container: Node): Node[] {
  return container.children ?? [];
}

/**
 * Inserts an item at the end of an object (`key` given) or an array, one per line at the
 * indentation of the existing items (or one level in from the container).
 */
export function appendEdit(doc: JsonDoc, container: Node, value: unknown, key?: string): TextEdit {
  const { text } = doc;
  const kids = items(container);
  const last = kids[kids.length - 1];
  const first = kids[0];
  const childIndent =
    first && startsLine(text, first.offset)
      ? lineIndent(text, first.offset)
      : lineIndent(text, container.offset) + doc.unit;
  const body = `${key === undefined ? '' : `${JSON.stringify(key)}: `}${render(doc, value, childIndent)}`;
  if (last) {
    const end = last.offset + last.length;
    const sameLine = !startsLine(text, last.offset);
    return { offset: end, length: 0, content: sameLine ? `, ${body}` : `,${doc.eol}${childIndent}${body}` };
  }
  // An empty container: its inside is replaced (whitespace only, or a comment kept before the item).
  const inner = text.slice(container.offset + 1, container.offset + container.length - 1);
  const keep = inner.trim() ? inner.replace(/\s+$/, '') : '';
  return {
    offset: container.offset + 1,
    length: container.length - 2,
    content: `${keep}${doc.eol}${childIndent}${body}${doc.eol}${lineIndent(text, container.offset)}`,
  };
}

/** Replaces a value node by `value`, indented as the node's line. */
export function replaceEdit(doc: JsonDoc, node: Node, value: unknown): TextEdit {
  return { offset: node.offset, length: node.length, content: render(doc, value, lineIndent(doc.text, node.offset)) };
}

/**
 * Removes one item (an array value or an object's property node) of `container`, with its
 * comma and the line break before it: the exact inverse of {@link appendEdit}. The last item
 * of a container empties it to `{}` / `[]`.
 */
export function removeEdit(_doc: JsonDoc, container: Node, item: Node): TextEdit {
  const kids = items(container);
  const i = kids.indexOf(item);
  if (kids.length === 1) return { offset: container.offset + 1, length: container.length - 2, content: '' };
  const prev = kids[i - 1];
  if (prev) {
    const from = prev.offset + prev.length;
    return { offset: from, length: item.offset + item.length - from, content: '' };
  }
  const next = kids[1] as Node;
  return { offset: item.offset, length: next.offset - item.offset, content: '' };
}
