// The mesh: this node's id, version and start time, and the nodes that share its database
// (each node heartbeats into mesh_nodes every few seconds; a node unseen for 15 s is dropped).
// SVC_MESH_HEARTBEAT_MS and SVC_MESH_STALE_SECONDS change both (the scale-out tests shorten them).
import { z } from 'zod';
import { defineOp, type Operation } from './types.ts';
import type { App } from './types.ts';
import { okWith } from './outputs.ts';

export const HEARTBEAT_MS = 5000;
export const STALE_SECONDS = 15;

/** heartbeat period and staleness of this node, from its environment (defaults above) */
export function meshTiming(app: App): { heartbeatMs: number; staleSeconds: number } {
  const pos = (v: string | undefined, dflt: number) => (v !== undefined && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : dflt);
  return { heartbeatMs: pos(app.config.env.SVC_MESH_HEARTBEAT_MS, HEARTBEAT_MS), staleSeconds: pos(app.config.env.SVC_MESH_STALE_SECONDS, STALE_SECONDS) };
}

export async function heartbeat(app: App): Promise<void> {
  await app.db.query(
    `INSERT INTO mesh_nodes (node_id, version, base_url, started_at, last_seen) VALUES ($1,$2,$3,$4, now())
     ON CONFLICT (node_id) DO UPDATE SET last_seen = now(), base_url = EXCLUDED.base_url`,
    [app.nodeId, app.version, app.config.baseUrl, app.startedAt]);
}

export function operations(app: App): Operation[] {
  const { heartbeatMs, staleSeconds } = meshTiming(app);
  let timer: NodeJS.Timeout | null = null;
  const beat = () => heartbeat(app).catch(() => { /* the store may be closing */ });
  timer = setInterval(beat, heartbeatMs);
  timer.unref();
  void beat();
  app.onClose.push(async () => {
    if (timer) clearInterval(timer);
    await app.db.query('DELETE FROM mesh_nodes WHERE node_id = $1', [app.nodeId]).catch(() => {});
  });
  return [
    defineOp({
      id: 'mesh.get',
      method: 'GET',
      path: '/api/mesh',
      access: 'public',
      tag: 'mesh',
      title: 'Nodes of the mesh',
      summary: "This node's id, version and start time, and the live nodes that share its database.",
      input: z.strictObject({}),
      output: okWith({
        node: z.object({ id: z.string(), version: z.string(), startedAt: z.string(), store: z.string().describe('pglite or postgres') }),
        nodes: z.array(z.object({ id: z.string(), version: z.string(), baseUrl: z.string(), startedAt: z.string(), lastSeen: z.string(), self: z.boolean() })),
      }),
      async handler(_i, ctx) {
        const rows = await ctx.app.db.query<any>(
          `SELECT node_id, version, base_url, started_at, last_seen FROM mesh_nodes
            WHERE last_seen > now() - make_interval(secs => $1) ORDER BY started_at, node_id`, [staleSeconds]);
        return {
          ok: true,
          node: { id: ctx.app.nodeId, version: ctx.app.version, startedAt: ctx.app.startedAt, store: ctx.app.db.backend },
          nodes: rows.map((r) => ({ id: r.node_id, version: r.version, baseUrl: r.base_url, startedAt: new Date(r.started_at).toISOString(), lastSeen: new Date(r.last_seen).toISOString(), self: r.node_id === ctx.app.nodeId })),
        };
      },
    }),
  ];
}
