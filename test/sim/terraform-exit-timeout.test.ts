import { startSimulator } from '../../src/sim';
import { TerraformProvisioner } from '../../src/sim/terraform-provisioner';

describe("the terraform provisioner's exit timeout (the kill after a cancel's interrupt)", () => {
  it('is refused when it is not a whole, positive number of milliseconds, before anything starts', async () => {
    for (const bad of [0, -5, 1.5, Number.NaN]) {
      await expect(TerraformProvisioner.start({ exitTimeoutMs: bad })).rejects.toThrow(/exitTimeoutMs must be a whole number of milliseconds, at least 1/);
    }
  });

  it('is refused on the structural provisioner, which has no process to kill', async () => {
    await expect(startSimulator({ terraformExitTimeoutMs: 30_000 })).rejects.toThrow(/terraformExitTimeoutMs is only used by the terraform provisioner; pass provisioner: "terraform" too/);
  });
});
