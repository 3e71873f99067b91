import type { CoderClient } from '../../src/adapters/coder';
import type { CoderSimulator, RequestLogEntry } from '../../src/sim';

const STATE_PUT = /\/workspacebuilds\/([^/]+)\/state$/;

/** The state PUTs that reached the simulator for one workspace's builds (any status unless `okOnly`). */
export async function statePutsOf(sim: CoderSimulator, coder: CoderClient, workspaceId: string, opts: { okOnly?: boolean } = {}): Promise<RequestLogEntry[]> {
  const owner = new Map<string, string>();
  const found: RequestLogEntry[] = [];
  for (const entry of sim.requestLog()) {
    const m = entry.method === 'PUT' ? STATE_PUT.exec(entry.path) : null;
    if (!m) continue;
    if (opts.okOnly && (entry.status < 200 || entry.status > 299)) continue;
    if (!owner.has(m[1])) owner.set(m[1], (await coder.workspaceBuild(m[1])).workspace_id);
    if (owner.get(m[1]) === workspaceId) found.push(entry);
  }
  return found;
}

/** The build-creating POSTs Coder accepted for one workspace. */
export function buildPostsOf(sim: CoderSimulator, workspaceId: string): RequestLogEntry[] {
  return sim.requestLog().filter((r) => r.method === 'POST' && r.path.endsWith(`/workspaces/${workspaceId}/builds`) && r.status === 201);
}

/** A request that may change something in Coder: not a read, and not POST /authcheck (a question about the token). */
export function isWrite(r: RequestLogEntry): boolean {
  return r.method !== 'GET' && !r.path.endsWith('/authcheck');
}
