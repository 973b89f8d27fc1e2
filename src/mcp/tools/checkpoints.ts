import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { changeView } from '../../manager/index.js';
import type { Kit } from '../context.js';
import { MAX_ID_INPUT, anyObject, changeFields, changeOutput, sessionArg } from '../schemas.js';
import { defineTool } from './define.js';

/** Checkpoint tools: create, list, restore. */
export function registerCheckpointTools(server: McpServer, kit: Kit): void {
  defineTool(
    server,
    kit,
    'checkpoint_create',
    {
      title: 'Take a checkpoint',
      description:
        'Save a named, checksummed checkpoint of the session (its state, git branch/HEAD, hashes of recorded files) before a risky step, so it can be restored. Phases take one automatically when they complete. Returns the checkpoint (id, name, revision, git, file count).',
      input: {
        name: z.string().min(1).max(200).optional().describe('What the checkpoint marks (default: "revision N").'),
        ...changeFields,
      },
      output: { ...changeOutput, checkpoint: anyObject },
    },
    async (a) => {
      const id = await kit.session(a.session);
      const r = await kit.manager().checkpoints.create(id, { name: a.name ?? null }, await kit.change(a, id));
      return {
        ...changeView(r.state),
        checkpoint: r.info as unknown as Record<string, unknown>,
      };
    },
  );

  defineTool(
    server,
    kit,
    'checkpoint_list',
    {
      title: 'List checkpoints',
      description:
        "List the session's checkpoints, oldest first: id, name, revision, time, git, whether valid (checksum) and whether superseded by a later restore. Read-only.",
      input: { session: sessionArg },
      output: { session: z.string(), checkpoints: z.array(anyObject) },
      readOnly: true,
    },
    async (a) => {
      const id = await kit.session(a.session);
      return {
        session: id,
        checkpoints: (await kit.manager().checkpoints.list(id)) as unknown as Array<Record<string, unknown>>,
      };
    },
  );

  defineTool(
    server,
    kit,
    'checkpoint_restore',
    {
      title: 'Restore a checkpoint',
      description:
        "Restore the session's state to a checkpoint: undoes the recorded progress made since (history is kept: a restore event is appended, later checkpoints are marked superseded). Files in the workspace are not touched. Only when a person or the resume plan asks for it. Returns the checkpoint, the superseded ones and the new revision. A damaged checkpoint is refused with CORRUPT naming the previous valid one.",
      input: {
        checkpoint: z.string().min(1).max(MAX_ID_INPUT).describe('Checkpoint id (see checkpoint_list).'),
        ...changeFields,
      },
      output: { ...changeOutput, checkpoint: anyObject, superseded: z.array(z.string()) },
      destructive: true,
    },
    async (a) => {
      const id = await kit.session(a.session);
      const r = await kit
        .manager()
        .checkpoints.restore(id, a.checkpoint, { ...(await kit.change(a, id)), git: false, force: false });
      return {
        ...changeView(r.state),
        checkpoint: r.checkpoint as unknown as Record<string, unknown>,
        superseded: r.superseded,
      };
    },
  );
}
