export { migrateWorkspace } from './migrate-workspace';
export { migrateTemplate } from './migrate-template';
export { migrateFleet } from './migrate-fleet';
export { recoverWorkspace } from './recover-workspace';
export { zeroTouchWorkspace } from './zero-touch-workspace';
export { migrateOrganization } from './migrate-organization';
