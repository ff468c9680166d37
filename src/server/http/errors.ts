import type { FieldProblem } from '../../errors.js';
export type { FieldProblem };

/** Where a validation problem was found. */
export type ProblemSource = 'payload' | 'query' | 'params';

/** The JSON error body every failure answers with (api-decisions §1.3). */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  attributes?: Record<string, unknown>;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** A failure a route or guard raises; the app turns it into its error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly attributes?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The response body of this error. */
  body(): ErrorBody {
    const body: ErrorBody = { statusCode: this.status, error: REASONS[this.status] ?? 'Error', message: this.message };
    if (this.attributes) body.attributes = this.attributes;
    return body;
  }
}

/** 400 from a list of problems: message `"<path>" <problem>` joined with `; `, attributes {source, keys, errors}. */
export function validationError(source: ProblemSource, problems: FieldProblem[]): ApiError {
  const message = problems.map((p) => `"${p.path}" ${p.message}`).join('; ');
  const keys = [...new Set(problems.map((p) => p.path))];
  return new ApiError(400, message, { source, keys, errors: problems });
}

/** 400 for one problem at `path`. */
export function invalid(source: ProblemSource, path: string, message: string): ApiError {
  return validationError(source, [{ path, message }]);
}

/** 404 with the decided body (missing, foreign, unknown route, wrong method). */
export function notFound(): ApiError {
  return new ApiError(404, 'Not Found');
}

/** 409 with a message naming what is taken or in use. */
export function conflict(message: string): ApiError {
  return new ApiError(409, message);
}

/** 401 with the decided body and message. */
export function unauthorized(message: string): ApiError {
  return new ApiError(401, message, { error: message });
}

/** The 500 body; internals are never shown to the caller. */
export function internalError(): ApiError {
  return new ApiError(500, 'An internal server error occurred');
}

/** Seconds a client is asked to wait (`Retry-After`) while the database is unavailable. */
export const DATABASE_RETRY_AFTER_S = 5;

/** 503 while the database cannot answer: names the database, never its URL or password. */
export function databaseUnavailable(): ApiError {
  return new ApiError(503, 'The database is unavailable; try again shortly', undefined, { 'retry-after': String(DATABASE_RETRY_AFTER_S) });
}
