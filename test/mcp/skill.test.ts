/** The agent skill and the MCP docs name exactly the tools the server has. */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from './helpers.js';
import type { Harness } from './helpers.js';
import { ROOT } from '../cli/helpers.js';

const skill = fs.readFileSync(path.join(ROOT, 'skills', 'baton', 'SKILL.md'), 'utf8');
const docs = fs.readFileSync(path.join(ROOT, 'docs', 'mcp.md'), 'utf8');
let h: Harness | null = null;
afterAll(async () => h?.close());

async function toolNames(): Promise<string[]> {
  h ??= await connect();
  return (await h.client.listTools()).tools.map((t) => t.name);
}

/** Backquoted snake_case words that look like tool names. */
const mentioned = (text: string): Set<string> => new Set([...text.matchAll(/`([a-z]+_[a-z_]+)`/g)].map((m) => m[1]!));

describe('skills/baton/SKILL.md', () => {
  it('has the frontmatter agent skills need: name (the folder name) and a description of when to use it', () => {
    const m = /^---\n([\s\S]*?)\n---\n/.exec(skill);
    expect(m).not.toBeNull();
    const front = parse(m![1]!) as Record<string, unknown>;
    expect(Object.keys(front).sort()).toEqual(['description', 'name']);
    expect(front['name']).toBe('baton');
    expect(front['name']).toMatch(/^[a-z0-9-]{1,64}$/);
    expect(typeof front['description']).toBe('string');
    expect((front['description'] as string).length).toBeLessThanOrEqual(1024);
    expect(front['description']).toMatch(/Use /);
  });

  it('covers the start, each step, errors, stopping and resume plans, and names every tool that exists (and only those)', async () => {
    for (const heading of ['At the start', 'record progress', 'On error', 'Before stopping', 'Reading a resume plan']) expect(skill).toContain(heading);
    const tools = await toolNames();
    const prompts = (await h!.client.listPrompts()).prompts.map((p) => p.name);
    // file_conflict is an error type, not a tool.
    const named = [...mentioned(skill)].filter((w) => w !== 'file_conflict');
    for (const n of named) expect([...tools, ...prompts], `SKILL.md names ${n}`).toContain(n);
    for (const t of tools) expect(skill.includes(`\`${t}\``), `SKILL.md does not mention ${t}`).toBe(true);
  });
});

describe('docs/mcp.md', () => {
  it('documents every tool, resource and prompt', async () => {
    const tools = await toolNames();
    for (const t of tools) expect(docs.includes(`\`${t}\``), `docs/mcp.md does not mention ${t}`).toBe(true);
    const { resourceTemplates } = await h!.client.listResourceTemplates();
    for (const t of resourceTemplates) expect(docs).toContain(t.uriTemplate);
    expect(docs).toContain('baton://sessions');
    for (const p of (await h!.client.listPrompts()).prompts) expect(docs).toContain(`\`${p.name}\``);
  });
});
