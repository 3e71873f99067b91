/**
 * The deployment's licence, as far as the simulator models it. `premium`: the enterprise
 * access-control store (enterprise/coderd/dbauthz/accesscontrol.go) stores and enforces
 * require_active_version. `agpl` (no licence) and `expired` both run the AGPL store
 * (coderd/database/dbauthz/accesscontrol.go AGPLTemplateAccessControlStore): the setting is ignored
 * when set and always read back false. With `expired` a value stored while the licence was valid
 * stays in the database, so a PATCH that sends it again changes nothing (304), and still nobody is held.
 */
export type Licence = 'premium' | 'agpl' | 'expired';

export const LICENCES: readonly Licence[] = ['premium', 'agpl', 'expired'];

/** Whether template access control (require_active_version) is in force. */
export function accessControlEntitled(licence: Licence): boolean {
  return licence === 'premium';
}
