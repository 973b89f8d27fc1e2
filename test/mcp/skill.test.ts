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
    for (const heading of ['At the start', 'record progress', 'On error', 'Before stopping', 'Reading a resume plan'])
      expect(skill).toContain(heading);
    const tools = await toolNames();
    const prompts = (await h!.client.listPrompts()).prompts.map((p) => p.name);
    // file_conflict is an error type, not a tool.
    const named = [...mentioned(skill)].filter((w) => w !== 'file_conflict');
    for (const n of named) expect([...tools, ...prompts], `SKILL.md names ${n}`).toContain(n);
    for (const t of tools) expect(skill.includes(`\`${t}\``), `SKILL.md does not mention ${t}`).toBe(true);
  });
});

describe('what the skill asks a model to record', () => {
  it('never to estimate its own tokens: tokens_record only with a usage report, never "after each model call"', () => {
    expect(skill).not.toMatch(/after each model call/i);
    expect(skill).toContain('Never estimate or invent token counts');
    const row = skill.split('\n').find((l) => l.startsWith('|') && l.includes('`tokens_record` ('));
    expect(row).toMatch(/usage report/);
    expect(row).toMatch(/never an estimate/);
    // The "before stopping" list no longer asks for tokens not yet counted.
    const stopping = skill.slice(skill.indexOf('## 4. Before stopping'), skill.indexOf('## 5.'));
    expect(stopping).not.toContain('`tokens_record`');
  });

  it('says how a model knows the hooks are installed (the briefing the hooks give) and what it leaves to them', () => {
    // The words the skill points to are the first words of the hooks' briefing.
    const briefingSource = fs.readFileSync(path.join(ROOT, 'src', 'domain', 'resume', 'agent-briefing.ts'), 'utf8');
    const marker = '[baton] This conversation works on baton session';
    expect(briefingSource).toContain(marker);
    expect(skill).toContain(marker);
    const hooks = skill.slice(
      skill.indexOf("**When baton's hooks are installed**"),
      skill.indexOf('**Without the hooks**'),
    );
    for (const left of [
      'files you write',
      'todo list',
      'sub-agents',
      'tokens',
      '`file_record`',
      '`tokens_record`',
      '`substep_reach`',
    ])
      expect(hooks).toContain(left);
    for (const kept of ['`phase_start`', 'decisions', 'findings', '`error_record`', '`context_set`'])
      expect(hooks).toContain(kept);
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
