import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Payload } from '@temporalio/common';
import { migrationStatus, startWorkspaceMigration } from '../../src/client/migrations';
import { decide } from '../../src/client/approvals';
import { EncryptionCodec } from '../../src/adapters/temporal/payload-codec';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { capturedWorkerLog } from '../harness/worker-log';
import { createMigratedEnv, type MigrationEnv } from '../workflows/fixtures/migration-env';
import { captureProcessOutput } from '../harness/process-output';

type StateJson = { serial: number; resources: { mode: string; type: string; name: string; instances: { attributes: Record<string, unknown> }[] }[] };

/**
 * Seeds secrets where they really live (the Coder session token, the payload/backup encryption key,
 * a kubernetes_secret value and the agent token and SSH key inside workspace states), runs
 * migrations that succeed, roll back and wait on an approval, then searches everything those runs
 * left behind: each workflow history (raw and decrypted), search attributes, memos, the worker's log
 * lines at every level, this process's output, notifications, error texts and the backups on disk.
 * WSMIGRATE_SECRETS_REPORT=<file> writes the counts for bench/reliability.
 */
describe('secrets never leave their place', () => {
  let env: MigrationEnv;
  let targetVersionId: string;
  const key = randomBytes(32);
  const codec = new EncryptionCodec(key);
  const processOutput: string[] = [];
  const k8sSecretValue = `db-password-${randomBytes(12).toString('hex')}`;

  beforeAll(async () => {
    ({ env, targetVersionId } = await createMigratedEnv({ workspaces: 3 }, { encryptionKey: key }));
    captureProcessOutput(processOutput);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await env?.close();
  });

  /** Adds a kubernetes_secret holding `k8sSecretValue` to a workspace's state (a SAME pair: renamed to _v1). */
  async function seedKubernetesSecret(workspaceId: string): Promise<void> {
    const state = JSON.parse(env.sim.stateOf(workspaceId)) as StateJson;
    state.resources.push({
      mode: 'managed',
      type: 'kubernetes_secret',
      name: 'db',
      provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
      instances: [
        {
          schema_version: 0,
          attributes: { id: 'coder/db', data: { password: k8sSecretValue }, binary_data: { password: Buffer.from(k8sSecretValue).toString('base64') }, metadata: [{ name: 'db', namespace: 'coder' }], type: 'Opaque' },
          sensitive_attributes: [[{ type: 'get_attr', value: 'data' }]],
        },
      ],
    } as unknown as StateJson['resources'][number]);
    state.serial += 1;
    await env.coder.putWorkspaceBuildState((await env.coder.workspace(workspaceId)).latest_build.id, Buffer.from(JSON.stringify(state)));
  }

  const secretsInState = (workspaceId: string): string[] => {
    const state = JSON.parse(env.sim.stateOf(workspaceId)) as StateJson;
    const attr = (type: string, name: string) => state.resources.find((r) => r.type === type)?.instances[0].attributes[name] as string;
    const ssh = attr('coder_workspace_owner', 'ssh_private_key');
    return [attr('coder_agent', 'token'), ssh, ssh.split('\n')[1]];
  };

  async function decodedPayloads(node: unknown, out: string[] = []): Promise<string[]> {
    if (!node || typeof node !== 'object' || node instanceof Uint8Array) return out;
    const rec = node as Record<string, unknown>;
    if (rec.data instanceof Uint8Array && rec.metadata) {
      const [plain] = await codec.decode([rec as Payload]);
      out.push(Buffer.from(plain.data ?? []).toString('utf8'));
    }
    for (const v of Object.values(rec)) await decodedPayloads(v, out);
    return out;
  }

  it('none of them is found in histories, search attributes, memos, logs, notifications, errors or backups', async () => {
    const [a, b, c] = env.sim.workspaces();
    await seedKubernetesSecret(a.id);
    await seedKubernetesSecret(b.id);
    const seeded = {
      'Coder session token': env.sim.token,
      'Coder session token (secret half)': env.sim.token.slice(env.sim.token.indexOf('-') + 1),
      'encryption key (hex)': key.toString('hex'),
      'encryption key (base64)': key.toString('base64'),
      'kubernetes_secret value': k8sSecretValue,
      'kubernetes_secret value (base64)': Buffer.from(k8sSecretValue).toString('base64'),
      ...Object.fromEntries([a, b, c].flatMap((w) => secretsInState(w.id).map((s, i) => [`${['agent token', 'SSH private key', 'SSH private key body'][i]} of ${w.name}`, s]))),
    };
    for (const value of Object.values(seeded)) expect(value.length).toBeGreaterThan(12);

    const input = (w: typeof a, extra: Record<string, unknown> = {}) => ({ owner: w.owner, workspace: w.name, template: env.sim.template.name, targetVersionId, ...extra });
    // A: option B, waits for a human (the guard sees the unmanaged kubernetes_secret_v1 go) or migrates.
    const runA = await startWorkspaceMigration(env.t.client, input(a, { option: 'B', approval: { policy: 'all', approvers: ['sre'] } }), { taskQueue: env.taskQueue });
    // B: fails its pinned start and is rolled back (error texts, restore notifications).
    env.sim.setFaults({ failBuilds: { workspaceId: b.id, transition: 'start', times: 1, message: 'injected: node not ready' } });
    const runB = await startWorkspaceMigration(env.t.client, input(b, { option: 'B', approval: { policy: 'none' } }), { taskQueue: env.taskQueue });
    // C: option A, migrated end to end.
    const runC = await startWorkspaceMigration(env.t.client, input(c, { option: 'A', approval: { policy: 'none' } }), { taskQueue: env.taskQueue });
    const approveAll = (async () => {
      for (;;) {
        const d = await runA.describe();
        if (d.status.name !== 'RUNNING') return;
        const pending = ((await migrationStatus(env.t.client, runA.workflowId)) as WorkspaceMigrationStatus).pendingApproval;
        if (pending) await decide(env.t.client, runA.workflowId, 'approve', { approver: 'sre', comment: 'ok' }).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const outcomes = await Promise.allSettled([runA.result(), runB.result(), runC.result()]);
    await approveAll;
    env.sim.setFaults(undefined);
    expect(outcomes[1].status).toBe('rejected');
    expect(outcomes[2].status).toBe('fulfilled');

    const places: Record<string, string> = {};
    for (const h of [runA, runB, runC]) {
      const history = await h.fetchHistory();
      const described = await h.describe();
      places[`history of ${h.workflowId} (as stored)`] = JSON.stringify(history);
      places[`history of ${h.workflowId} (decrypted payloads)`] = (await decodedPayloads(history)).join('\n');
      places[`search attributes of ${h.workflowId}`] = JSON.stringify(described.typedSearchAttributes) + JSON.stringify(described.raw.workflowExecutionInfo?.searchAttributes ?? {});
      places[`memo of ${h.workflowId}`] = JSON.stringify(await described.memo) + JSON.stringify(described.raw.workflowExecutionInfo?.memo ?? {});
      places[`status of ${h.workflowId}`] = JSON.stringify(await migrationStatus(env.t.client, h.workflowId));
    }
    places['error texts'] = outcomes.map((o) => (o.status === 'rejected' ? `${String(o.reason)} ${String((o.reason as { cause?: unknown }).cause)}` : '')).join('\n');
    places['worker log (every level)'] = capturedWorkerLog().join('\n');
    places['process output'] = processOutput.join('');
    places.notifications = JSON.stringify(env.notes);
    const backups = readdirSync(env.blobDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    places['backups on disk (encrypted at rest)'] = backups.map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1')).join('\n');

    // The scan is not blind: it sees this run's steps, notifications and errors.
    expect(places['worker log (every level)']).toMatch(new RegExp(`Activity completed.*${runC.workflowId}`));
    expect(env.notes.map((n) => n.kind)).toEqual(expect.arrayContaining(['migration-done', 'restored']));
    expect(places['error texts']).toMatch(/rolled back/);
    expect(backups.length).toBeGreaterThan(0);

    const found = Object.entries(seeded).flatMap(([what, value]) =>
      Object.entries(places)
        .filter(([, text]) => text.includes(value))
        .map(([where]) => `${what} in ${where}`),
    );
    if (process.env.WSMIGRATE_SECRETS_REPORT) {
      writeFileSync(process.env.WSMIGRATE_SECRETS_REPORT, JSON.stringify({ secretsSeeded: Object.keys(seeded).length, placesScanned: Object.keys(places).length, runs: 3, found }, null, 2));
    }
    expect(found).toEqual([]);
  }, 240_000);
});
