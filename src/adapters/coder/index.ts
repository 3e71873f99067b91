export { CoderClient, DEFAULT_WAIT_TIMEOUT_MS } from './client';
export type {
  CoderClientOptions,
  CreateTemplateVersionRequest,
  CreateWorkspaceBuildOptions,
  CreateWorkspaceBuildRequest,
  SessionToken,
  WaitOptions,
} from './client';
export { CoderApiError, CoderWaitTimeoutError, isCoderApiError } from './errors';
export type { CoderApiErrorFields, CoderApiErrorKind } from './errors';
export { DEFAULT_RETRY_POLICY } from './retry-delay';
export { givenVersionProblem, type GivenVersionProblem } from './given-version';
export { unknownNames, UNKNOWN_NAMES_HINT, type NamedFilters } from './unknown-names';
export type { RetryPolicy } from './retry-delay';
export * from './schemas';
