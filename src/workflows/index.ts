export { migrateWorkspace } from './migrate-workspace';
export { migrateTemplate } from './migrate-template';
export { recoverWorkspace } from './recover-workspace';
