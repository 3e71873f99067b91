export interface Validation {
  field: string;
  detail: string;
}

/** A failure the simulated server answers with a codersdk.Response body and this status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: string,
    readonly validations?: Validation[],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): Record<string, unknown> {
    return {
      message: this.message,
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      ...(this.validations !== undefined ? { validations: this.validations } : {}),
    };
  }
}

export const NOT_FOUND_MESSAGE = 'Resource not found or you do not have access to this resource';

export function notFound(): ApiError {
  return new ApiError(404, NOT_FOUND_MESSAGE);
}

/** chi's answer for a path or method no handler is mounted on. */
export function routeNotFound(): ApiError {
  return new ApiError(404, 'Route not found.');
}
