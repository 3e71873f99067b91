/** How a wsmigrate workflow or activity fails, as the client, the CLI, chat and the tests read it (ApplicationFailure.type). */
export { FailureType, FINAL_FAILURE_TYPES, type WsmigrateFailureType } from '../domain/failure-types';
