import type { z } from 'zod';
import { redactSecrets } from '../../config/secret';
import { routeOf, type CoderCallObserver } from './call-observer';
import { CoderApiError, isRetryableKind, kindOfStatus, type CoderApiErrorFields, type CoderApiErrorKind } from './errors';
import { fetchExchange, nodeHttpExchange, type ExchangeAnswer, type SendExchange } from './http-exchange';
import { backoffDelayMs, MAX_IN_PROCESS_RETRY_AFTER_MS, parseRetryAfterMs, type RetryPolicy } from './retry-delay';
import { CoderResponseSchema } from './schemas';

/** What a call does and what it needs, so that its errors can tell the user what to fix. */
export interface Endpoint {
  /** The action in words, completing "could not …" ("get the Terraform state of build b1"). */
  does: string;
  /** The permission the token's user needs, in words; absent for public endpoints. */
  needs?: string;
  /** Extra advice for a given HTTP status. */
  hints?: Partial<Record<number, string>>;
}

export type RequestBody = { json: unknown } | { raw: Buffer; contentType: string };

export interface CoderRequest<Settled = never> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** Path under /api/v2 with every segment already URI-encoded; never holds a query string. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: RequestBody;
  /** Accept header; JSON unless the endpoint answers raw bytes. */
  accept?: string;
  /** Statuses that mean success for this endpoint. */
  expect: readonly number[];
  endpoint: Endpoint;
  /**
   * Called before each retry with the failure that caused it. Returning a value ends the request with
   * that value instead of sending it again: a POST whose answer was lost may have been applied already.
   */
  beforeRetry?: (failure: CoderApiError) => Promise<Settled | undefined>;
}

export interface TransportOptions {
  baseUrl: URL;
  token: string;
  /** Send through this fetch instead of node:http(s) (tests inject faults this way). */
  fetchImpl?: typeof fetch;
  retry: RetryPolicy;
  userAgent: string;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  requestTimeoutMs: number;
  /** Told about every attempt (route, status, duration); must not throw. */
  observer?: CoderCallObserver;
}

type Answer = ExchangeAnswer;

/** A failure of one attempt, before we know whether it is the last one. */
interface AttemptFailure {
  kind: CoderApiErrorKind;
  status: number;
  detailText: string;
  coderMessage?: string;
  detail?: string;
  validations?: string[];
  retryAfterMs?: number;
  cause?: Error;
}

/**
 * Sends requests to one Coder deployment: authentication, retries with backoff, Retry-After,
 * classification of failures and validation of answers. Holds the session token in a private field
 * so that neither util.inspect nor JSON.stringify of the transport or the client can show it.
 */
export class CoderTransport {
  readonly #token: string;
  readonly #options: Omit<TransportOptions, 'token'>;
  readonly #exchange: SendExchange;

  constructor(options: TransportOptions) {
    const { token, ...rest } = options;
    this.#token = token;
    this.#options = rest;
    this.#exchange = options.fetchImpl ? fetchExchange(options.fetchImpl) : nodeHttpExchange;
  }

  get origin(): string {
    return this.#options.baseUrl.origin;
  }

  /** Sends the request and validates the JSON answer against `schema`. */
  async json<S extends z.ZodType>(request: CoderRequest<z.output<S>>, schema: S): Promise<z.output<S>> {
    const answer = await this.#send(request);
    if ('settled' in answer) return answer.settled;
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw this.#invalidResponse(
        request,
        answer,
        `the body is not valid JSON (${answer.body.length} bytes, content-type ${answer.header('content-type') ?? 'none'})`,
      );
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      throw this.#invalidResponse(request, answer, `the body does not have the expected shape: ${describeFirstIssue(result.error.issues)}`);
    }
    return result.data;
  }

  /** Sends the request and returns the body as it came, without looking at it. */
  async bytes(request: CoderRequest): Promise<Buffer> {
    const answer = await this.#send(request);
    return 'settled' in answer ? answer.settled : answer.body;
  }

  /** Sends the request and ignores the body of the answer. */
  async send(request: CoderRequest): Promise<void> {
    await this.#send(request);
  }

  async #send<Settled>(request: CoderRequest<Settled>): Promise<Answer | { settled: Settled }> {
    const { retry, sleep } = this.#options;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt(request);
      if ('body' in outcome) return outcome;
      const error = this.#toError(request, outcome, attempt);
      const tooLongToWait = (outcome.retryAfterMs ?? 0) > MAX_IN_PROCESS_RETRY_AFTER_MS;
      if (!error.retryable || attempt >= retry.maxAttempts || tooLongToWait) throw error;
      if (request.beforeRetry) {
        const settled = await request.beforeRetry(error);
        if (settled !== undefined) return { settled };
      }
      await sleep(outcome.retryAfterMs ?? backoffDelayMs(attempt, retry));
    }
  }

  async #attempt(request: CoderRequest<unknown>): Promise<Answer | AttemptFailure> {
    const { userAgent, requestTimeoutMs, now } = this.#options;
    const headers: Record<string, string> = {
      'Coder-Session-Token': this.#token,
      Accept: request.accept ?? 'application/json',
      'User-Agent': userAgent,
    };
    let body: string | Buffer | undefined;
    if (request.body && 'json' in request.body) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(request.body.json);
    } else if (request.body) {
      headers['Content-Type'] = request.body.contentType;
      body = request.body.raw;
    }

    let response: Answer;
    const started = performance.now();
    const observe = (status: number) => {
      try {
        this.#options.observer?.({ method: request.method, route: routeOf(request.path), status, durationMs: performance.now() - started });
      } catch {
        // A broken metrics hook must never fail a call to Coder.
      }
    };
    try {
      response = await this.#exchange(this.#url(request), { method: request.method, headers, body, timeoutMs: requestTimeoutMs });
    } catch (error) {
      observe(0);
      return this.#networkFailure(error);
    }
    observe(response.status);

    if (request.expect.includes(response.status)) return response;
    const kind = kindOfStatus(response.status);
    const failure: AttemptFailure = { kind, status: response.status, detailText: `HTTP ${response.status}` };
    Object.assign(failure, this.#readErrorBody(response.body));
    if (kind === 'rate-limited' || response.status === 503) {
      failure.retryAfterMs = parseRetryAfterMs(response.header('retry-after'), now());
    }
    if (response.status >= 300 && response.status < 400) {
      failure.detailText = `HTTP ${response.status} redirect to ${safeLocation(response.header('location'))}; point wsmigrate at that URL instead`;
    } else if (kind === 'invalid-response') {
      failure.detailText = `unexpected HTTP ${response.status} (expected ${request.expect.join(' or ')})`;
    }
    return failure;
  }

  #url(request: CoderRequest<unknown>): URL {
    const base = this.#options.baseUrl;
    const url = new URL(`${base.pathname.replace(/\/$/, '')}/api/v2${request.path}`, base);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  #readErrorBody(body: Buffer): Partial<AttemptFailure> {
    if (body.length === 0) return {};
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      // Not a Coder error body (a proxy page, say): its text is not repeated, it may be anything.
      return {};
    }
    const parsed = CoderResponseSchema.safeParse(json);
    if (!parsed.success) return {};
    const validations = parsed.data.validations.map((v) => this.#redact(`${v.field}: ${v.detail}`));
    return {
      coderMessage: this.#redact(parsed.data.message),
      detail: parsed.data.detail ? this.#redact(parsed.data.detail) : undefined,
      validations: validations.length > 0 ? validations : undefined,
    };
  }

  #networkFailure(error: unknown): AttemptFailure {
    const reason = describeNetworkError(error, this.#options.requestTimeoutMs);
    // A fresh cause, so the original error (and anything undici hung on it) never travels with ours.
    const cause = Object.assign(new Error(this.#redact(reason.text)), reason.code ? { code: reason.code } : {});
    return { kind: 'network', status: 0, detailText: this.#redact(reason.text), cause };
  }

  #toError(request: CoderRequest<unknown>, failure: AttemptFailure, attempts: number): CoderApiError {
    const fields: CoderApiErrorFields = {
      kind: failure.kind,
      status: failure.status,
      method: request.method,
      path: request.path,
      endpoint: request.endpoint.does,
      retryable: isRetryableKind(failure.kind),
      coderMessage: failure.coderMessage,
      detail: failure.detail,
      validations: failure.validations,
      retryAfterMs: failure.retryAfterMs,
      attempts,
    };
    return new CoderApiError(composeMessage(request, failure, attempts, this.origin), fields, failure.cause ? { cause: failure.cause } : undefined);
  }

  #invalidResponse(request: CoderRequest<unknown>, answer: Answer, reason: string): CoderApiError {
    const failure: AttemptFailure = { kind: 'invalid-response', status: answer.status, detailText: reason };
    return this.#toError(request, failure, 1);
  }

  /** Coder's texts are echoed into errors; make sure none of them carries the token back. */
  #redact(text: string): string {
    const token = this.#token;
    // Coder tokens are "<id>-<secret>"; the secret half alone is just as sensitive.
    const secretHalf = token.slice(token.indexOf('-') + 1);
    return redactSecrets(text, [token, secretHalf.length >= 8 ? secretHalf : undefined]);
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `CoderTransport { origin: '${this.origin}' }`;
  }

  toJSON(): Record<string, string> {
    return { origin: this.origin };
  }
}

function composeMessage(request: CoderRequest<unknown>, failure: AttemptFailure, attempts: number, origin: string): string {
  const { endpoint } = request;
  const call = `${request.method} ${request.path}`;
  const coderSays = failure.coderMessage
    ? ` Coder says: "${withoutFinalPeriod(failure.coderMessage)}"${failure.detail ? ` (${withoutFinalPeriod(failure.detail)})` : ''}.`
    : '';
  const needs = endpoint.needs ?? 'access to the deployment';
  const validations = failure.validations ? ` Invalid fields: ${failure.validations.join('; ')}.` : '';
  const hint = endpoint.hints?.[failure.status] ? ` ${endpoint.hints[failure.status]}` : '';
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  const head = `Could not ${endpoint.does} (${call})`;
  switch (failure.kind) {
    case 'unauthorized':
      return `${head}: 401 Unauthorized, Coder did not accept the session token (expired, revoked or from another deployment).${coderSays} Log in again (\`coder login\`) or create a new token (\`coder tokens create\`)${endpoint.needs ? ` for a user with ${endpoint.needs}` : ''}.${hint}`;
    case 'forbidden':
      return `${head}: 403 Forbidden, the call needs ${needs}, which the token's user lacks.${coderSays} Ask a Coder owner to grant it, or run wsmigrate with a token of a user who has it.${hint}`;
    case 'not-found':
      return `${head}: ${failure.status}, not found or no access (Coder answers 404 when the caller cannot read a thing). Check the name or ID, and that the token's user has ${needs}.${coderSays}${hint}`;
    case 'conflict':
      return `${head}: 409 Conflict.${coderSays}${hint}`;
    case 'rate-limited': {
      const wait = failure.retryAfterMs !== undefined ? ` Coder asked to wait ${Math.ceil(failure.retryAfterMs / 1000)}s.` : '';
      return `${head}: 429 Too Many Requests${tries}.${wait}${coderSays} This is retryable; lower the concurrency if it persists.${hint}`;
    }
    case 'server':
      return `${head}: Coder answered ${failure.status}${tries}.${coderSays} This is retryable; check the Coder server's health and logs if it persists.${hint}`;
    case 'network':
      return `${head}: no answer from ${origin}${tries} (${failure.detailText}). This is retryable; check the URL, the network and that Coder is up.${hint}`;
    case 'bad-request':
      return `${head}: ${failure.status} ${failure.status === 400 ? 'Bad Request' : 'refused'}.${coderSays}${validations}${hint}`;
    case 'invalid-response':
      return `${head}: ${failure.detailText}. The server at ${origin} does not answer like the Coder API wsmigrate supports; check the URL and the Coder version.${hint}`;
  }
}

function withoutFinalPeriod(text: string): string {
  return text.replace(/\.\s*$/, '');
}

/** Names the first field that failed validation, never its value. */
function describeFirstIssue(issues: readonly z.core.$ZodIssue[]): string {
  const issue = issues[0];
  if (!issue) return 'unknown problem';
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  const expected =
    issue.code === 'invalid_type'
      ? `expected ${issue.expected}`
      : issue.code === 'invalid_value'
        ? `expected one of ${issue.values.map((v) => JSON.stringify(v)).join('|')}`
        : issue.code;
  return `field "${field}" (${expected})`;
}

function describeNetworkError(error: unknown, timeoutMs: number): { text: string; code?: string } {
  const err = error as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return { text: `no answer within ${Math.round(timeoutMs / 1000)}s`, code: 'ETIMEDOUT' };
  }
  const code = err?.cause?.code ?? err?.code;
  const message = err?.cause?.message ?? err?.message ?? 'unknown network error';
  return { text: code && !message.includes(code) ? `${code}: ${message}` : message, code };
}

/** A Location header without its query string (which could carry anything). */
function safeLocation(location: string | null): string {
  if (!location) return 'an unnamed location';
  try {
    const url = new URL(location, 'http://relative.invalid');
    return url.host === 'relative.invalid' ? url.pathname : `${url.origin}${url.pathname}`;
  } catch {
    return 'an unreadable location';
  }
}
