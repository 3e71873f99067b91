import type { Workspace } from '../../../src/adapters/coder';
import { activeVersionDeprecations } from '../../../src/adapters/coder/active-version-deprecations';
import { PREBUILDS_SYSTEM_USER_ID } from '../../../src/domain/prebuilt-workspaces';
import { K8S_TEMPLATE_MAIN_TF, packTar } from '../../../src/sim';

describe('activeVersionDeprecations (scan --org, the organization run)', () => {
  const coderWith = async (outdated: Partial<Workspace>[]) => {
    const tar = await packTar([{ name: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }]);
    const queries: string[] = [];
    const coder = {
      templateVersion: async (id: string) => ({ id, name: 'v7', job: { file_id: 'f' } }),
      downloadFile: async () => tar,
      workspacesOfTemplate: async (_t: string, o: { extraQuery?: string }) => {
        queries.push(o.extraQuery ?? '');
        return outdated as Workspace[];
      },
    } as unknown as Parameters<typeof activeVersionDeprecations>[0];
    return { coder, queries };
  };

  it("names the deprecated types of the active version and counts people's outdated workspaces, not prebuilt ones (Coder's reconciler replaces those)", async () => {
    const { coder, queries } = await coderWith([
      { id: 'w1', owner_id: 'u-alice' },
      { id: 'w2', owner_id: PREBUILDS_SYSTEM_USER_ID },
      { id: 'w3', owner_id: 'u-bob', is_prebuild: true },
    ]);
    const t = await activeVersionDeprecations(coder, 'coder', { name: 'k8s-dev', active_version_id: 'ver-1' });
    expect(t).toEqual({ name: 'k8s-dev', activeVersionId: 'ver-1', activeVersionName: 'v7', deprecatedTypes: ['kubernetes_deployment', 'kubernetes_persistent_volume_claim'], outdatedWorkspaces: 1 });
    expect(queries).toEqual(['outdated:true']);
  });

  it('a template whose only outdated workspaces are prebuilt ones has none outdated', async () => {
    const { coder } = await coderWith([{ id: 'w2', owner_id: PREBUILDS_SYSTEM_USER_ID }]);
    expect((await activeVersionDeprecations(coder, 'coder', { name: 'k8s-dev', active_version_id: 'ver-1' })).outdatedWorkspaces).toBe(0);
  });
});
