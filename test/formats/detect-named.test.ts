/**
 * The refusal for a layout name says what the command accepts: `auto` is suggested only
 * where it works (inspect, import), and `--format auto` on a writing command (export,
 * mirror) is told so instead of being called an unknown layout.
 */
import { describe, expect, it } from 'vitest';
import { isBatonError } from '../../src/domain/errors.js';
import { namedAdapter } from '../../src/formats/detect.js';
import { ADAPTERS } from '../../src/formats/registry.js';

function refusal(f: () => unknown): { message: string; hint: string | undefined } {
  try {
    f();
  } catch (e) {
    if (isBatonError(e, 'BAD_INPUT')) return { message: e.message, hint: e.hint };
    throw e;
  }
  throw new Error('expected a BAD_INPUT refusal');
}

describe('namedAdapter', () => {
  it('finds a named adapter', () => {
    expect(namedAdapter('bmad', ADAPTERS).name).toBe('bmad');
  });

  it('by default (reading commands) suggests auto for an unknown name', () => {
    const r = refusal(() => namedAdapter('nope', ADAPTERS));
    expect(r.message).toBe('Unknown session layout "nope".');
    expect(r.hint).toBe('Use --format with one of: maestro, go-team, bmit, bmad, ccw, or auto.');
  });

  it('with allowAuto: false, an unknown name is not told to try auto', () => {
    const r = refusal(() => namedAdapter('nope', ADAPTERS, { allowAuto: false }));
    expect(r.message).toBe('Unknown session layout "nope".');
    expect(r.hint).toBe('Use --format with one of: maestro, go-team, bmit, bmad, ccw.');
  });

  it('with allowAuto: false, "auto" is refused as needing a named layout, not as unknown', () => {
    const r = refusal(() => namedAdapter('auto', ADAPTERS, { allowAuto: false }));
    expect(r.message).not.toMatch(/Unknown session layout/);
    expect(r.message).toMatch(/needs the layout named/);
    expect(r.hint).not.toMatch(/auto/);
  });
});
