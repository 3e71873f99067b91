export type CoderApiErrorKind =
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'rate-limited'
  | 'server'
  | 'network'
  | 'bad-request'
  | 'invalid-response';

export interface CoderApiErrorFields {
  kind: CoderApiErrorKind;
  /** HTTP status; 0 when no answer arrived (network). */
  status: number;
  method: string;
  /** Request path under /api/v2, without the query string. */
  path: string;
  /** What the client was doing, in words ("get the Terraform state of a workspace build"). */
  endpoint: string;
  retryable: boolean;
  /** Coder's `message` from a codersdk.Response error body, when it sent one. */
  coderMessage?: string;
  /** Coder's `detail`. */
  detail?: string;
  /** Field-level complaints from `validations[]`, as "field: detail". */
  validations?: string[];
  /** How long the server asked us to wait (429/503 Retry-After). */
  retryAfterMs?: number;
  /** How many times the request was sent before giving up. */
  attempts: number;
}

/**
 * A failed call to the Coder API. The message says which call, what Coder answered and what to do;
 * it never holds the session token, request headers or a response body.
 */
export class CoderApiError extends Error implements CoderApiErrorFields {
  override readonly name = 'CoderApiError';
  readonly kind: CoderApiErrorKind;
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly endpoint: string;
  readonly retryable: boolean;
  readonly coderMessage?: string;
  readonly detail?: string;
  readonly validations?: string[];
  readonly retryAfterMs?: number;
  readonly attempts: number;

  constructor(message: string, fields: CoderApiErrorFields, options?: { cause?: Error }) {
    super(message, options);
    this.kind = fields.kind;
    this.status = fields.status;
    this.method = fields.method;
    this.path = fields.path;
    this.endpoint = fields.endpoint;
    this.retryable = fields.retryable;
    this.coderMessage = fields.coderMessage;
    this.detail = fields.detail;
    this.validations = fields.validations;
    this.retryAfterMs = fields.retryAfterMs;
    this.attempts = fields.attempts;
  }

  toJSON(): CoderApiErrorFields & { name: string; message: string } {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      status: this.status,
      method: this.method,
      path: this.path,
      endpoint: this.endpoint,
      retryable: this.retryable,
      coderMessage: this.coderMessage,
      detail: this.detail,
      validations: this.validations,
      retryAfterMs: this.retryAfterMs,
      attempts: this.attempts,
    };
  }
}

/** A wait for a build or a template version import ran out of time; the job itself may still finish. */
export class CoderWaitTimeoutError extends Error {
  override readonly name = 'CoderWaitTimeoutError';
  /** Waiting longer (or in a later activity attempt) can still succeed. */
  readonly retryable = true;

  constructor(
    message: string,
    readonly subject: 'workspace build' | 'template version',
    readonly id: string,
    readonly lastJobStatus: string | undefined,
    readonly waitedMs: number,
  ) {
    super(message);
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      subject: this.subject,
      id: this.id,
      lastJobStatus: this.lastJobStatus,
      waitedMs: this.waitedMs,
      retryable: this.retryable,
    };
  }
}

export function isCoderApiError(error: unknown, kind?: CoderApiErrorKind): error is CoderApiError {
  return error instanceof CoderApiError && (kind === undefined || error.kind === kind);
}

/** Which kind an HTTP status that was not expected belongs to. */
export function kindOfStatus(status: number): CoderApiErrorKind {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'not-found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate-limited';
  if (status >= 500) return 'server';
  if (status >= 400) return 'bad-request';
  // 1xx/2xx/3xx that the endpoint does not answer with: the server is not behaving like Coder.
  return 'invalid-response';
}

export function isRetryableKind(kind: CoderApiErrorKind): boolean {
  return kind === 'rate-limited' || kind === 'server' || kind === 'network';
}
