import type { Node } from 'jsonc-parser';
import { getNodeValue } from 'jsonc-parser';
import { BatonError } from '../../manager/index.js';
import { parseHookCommand } from './command.js';
import type { JsonDoc } from './json-edit.js';
import { appendEdit, applyEdit, member, parseJsonDoc, removeEdit, replaceEdit } from './json-edit.js';
import type { HookTarget } from './targets.js';

/** What an install or uninstall did to one config text, event by event. */
export interface MergeResult {
  /** The new text (equal to the old one when nothing changed). */
  text: string;
  changed: boolean;
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
}

/** One baton hook found in a config: its event and command line. */
export interface FoundHook {
  event: string;
  command: string;
}

/** The handler group baton writes for one event. */
export function batonGroup(t: HookTarget, event: string, command: string): Record<string, unknown> {
  const hook: Record<string, unknown> = {
    type: 'command',
    ...(t.cli === 'gemini' ? { name: 'baton' } : {}),
    command,
    timeout: t.timeoutCaps?.[event] ?? t.timeout,
  };
  return { ...(t.toolEvents.includes(event) ? { matcher: '*' } : {}), hooks: [hook] };
}

/** Parses a config text or refuses it, naming the file, the line and the way out. */
function parse(text: string, t: HookTarget, file: string): JsonDoc {
  const doc = parseJsonDoc(text, t.comments);
  if ('root' in doc) {
    if (doc.root.type !== 'object') throw refuse(file, 'its top level is not a JSON object', 1);
    return doc;
  }
  throw refuse(file, `it is not valid JSON: ${doc.message} at line ${doc.line}, column ${doc.column}`, doc.line);
}

function refuse(file: string, why: string, line: number): BatonError {
  return new BatonError('BAD_INPUT', `Cannot add baton's hooks to ${file}: ${why}. The file was left untouched.`, {
    hint: `Fix ${file} (line ${line}) so that it parses, or move it aside, then run the command again.`,
    details: { file, line },
  });
}

/** The object under `hooks`, checked to be an object; null when absent. */
function hooksObject(doc: JsonDoc, file: string): Node | null {
  const h = member(doc.root, 'hooks');
  if (!h) return null;
  if (h.value.type !== 'object') throw refuse(file, '"hooks" is not an object', lineOf(doc, h.value));
  return h.value;
}

function lineOf(doc: JsonDoc, n: Node): number {
  return doc.text.slice(0, n.offset).split('\n').length;
}

/** A baton handler inside an event's list: the group holding it and whether it is alone there. */
interface Located {
  event: string;
  list: Node;
  group: Node;
  handlers: Node;
  handler: Node;
  alone: boolean;
  command: string;
}

/** Every baton handler in the document, in file order. */
function locate(_doc: JsonDoc, hooks: Node | null): Located[] {
  const out: Located[] = [];
  for (const prop of hooks?.children ?? []) {
    const [k, list] = prop.children ?? [];
    if (!k || list?.type !== 'array') continue;
    for (const group of list.children ?? []) {
      const handlers = group.type === 'object' ? member(group, 'hooks')?.value : undefined;
      if (handlers?.type !== 'array') continue;
      const all = handlers.children ?? [];
      for (const handler of all) {
        const cmd = handler.type === 'object' ? member(handler, 'command')?.value.value : undefined;
        if (typeof cmd === 'string' && parseHookCommand(cmd)) {
          out.push({ event: String(k.value), list, group, handlers, handler, alone: all.length === 1, command: cmd });
        }
      }
    }
  }
  return out;
}

/** The baton hooks a config text holds (for `baton hooks status`); a text that does not parse throws BAD_INPUT. */
export function findBatonHooks(text: string, t: HookTarget, file: string): FoundHook[] {
  const doc = parse(text, t, file);
  return locate(doc, hooksObject(doc, file)).map((l) => ({ event: l.event, command: l.command }));
}

/** JSON with sorted keys, to compare an entry regardless of key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Removes one located handler: its whole group when alone in it, else the handler only. */
function removeLocated(doc: JsonDoc, l: Located): string {
  return applyEdit(doc.text, l.alone ? removeEdit(doc, l.list, l.group) : removeEdit(doc, l.handlers, l.handler));
}

/**
 * Merges baton's entries for `t` into a config text (null: no file yet) and returns the new
 * text: an event without a baton handler gets one group appended to its list; a baton
 * handler that differs (other paths, store or timeout) is replaced in place; extra baton
 * handlers and those on events baton no longer uses are removed. Everything else stays byte
 * for byte. Running it on its own output changes nothing.
 */
export function installInto(original: string | null, t: HookTarget, command: string, file: string): MergeResult {
  let text = original === null || original.trim() === '' ? '{}\n' : original;
  const r: MergeResult = { text, changed: false, added: [], updated: [], removed: [], unchanged: [] };
  parse(text, t, file);
  for (const event of t.events) {
    const want = batonGroup(t, event, command);
    let doc = parse(text, t, file);
    const hooks = hooksObject(doc, file);
    if (!hooks) {
      text = applyEdit(text, appendEdit(doc, doc.root, { [event]: [want] }, 'hooks'));
      r.added.push(event);
      continue;
    }
    const list = member(hooks, event)?.value;
    if (!list) {
      text = applyEdit(text, appendEdit(doc, hooks, [want], event));
      r.added.push(event);
      continue;
    }
    if (list.type !== 'array') throw refuse(file, `"hooks.${event}" is not a list`, lineOf(doc, list));
    const mine = locate(doc, hooks).filter((l) => l.event === event);
    const first = mine[0];
    if (!first) {
      text = applyEdit(text, appendEdit(doc, list, want));
      r.added.push(event);
      continue;
    }
    // Later duplicates go first (from the end, so earlier offsets stay valid).
    for (const dup of mine.slice(1).reverse()) text = removeLocated(doc, dup);
    doc = parse(text, t, file);
    const again = locate(doc, hooksObject(doc, file)).find((l) => l.event === event) as Located;
    const [node, value] = again.alone ? [again.group, want] : [again.handler, (want['hooks'] as unknown[])[0]];
    if (canonical(getNodeValue(node)) !== canonical(value)) {
      text = applyEdit(text, replaceEdit(doc, node, value));
      r.updated.push(event);
    } else if (mine.length > 1) r.updated.push(event);
    else r.unchanged.push(event);
  }
  const stale = [
    ...new Set(locate(parse(text, t, file), hooksObject(parse(text, t, file), file)).map((l) => l.event)),
  ].filter((e) => !t.events.includes(e));
  if (stale.length) text = removeAll(text, t, file, (l) => stale.includes(l.event));
  r.removed.push(...stale);
  r.text = text;
  r.changed = original === null || text !== original;
  return r;
}

/**
 * Removes baton's handlers (those `which` selects) from a config text, and an event list or
 * the `hooks` object that this left empty: the inverse of {@link installInto}, so install then
 * uninstall gives back the original bytes.
 */
function removeAll(text: string, t: HookTarget, file: string, which: (l: Located) => boolean = () => true): string {
  const emptied = new Set<string>();
  for (;;) {
    const doc = parse(text, t, file);
    const hooks = hooksObject(doc, file);
    const found = locate(doc, hooks).filter(which);
    const last = found[found.length - 1];
    if (last) {
      if (last.alone && last.list.children?.length === 1) emptied.add(last.event);
      text = removeLocated(doc, last);
      continue;
    }
    const prop = hooks?.parent ? hooks.parent : null;
    const gone = (hooks?.children ?? []).filter(
      (p) => emptied.has(String(p.children?.[0]?.value)) && !p.children?.[1]?.children?.length,
    );
    const lastGone = gone[gone.length - 1];
    if (hooks && lastGone) {
      text = applyEdit(text, removeEdit(doc, hooks, lastGone));
      continue;
    }
    if (hooks && prop && emptied.size && !hooks.children?.length)
      text = applyEdit(text, removeEdit(doc, doc.root, prop));
    return text;
  }
}

/** Removes every baton handler from a config text (null: no file) and reports which events had one. */
export function uninstallFrom(original: string | null, t: HookTarget, file: string): MergeResult {
  if (original === null) return { text: '', changed: false, added: [], updated: [], removed: [], unchanged: [] };
  const before = findBatonHooks(original, t, file);
  const text = before.length ? removeAll(original, t, file) : original;
  return {
    text,
    changed: text !== original,
    added: [],
    updated: [],
    removed: [...new Set(before.map((h) => h.event))],
    unchanged: [],
  };
}
