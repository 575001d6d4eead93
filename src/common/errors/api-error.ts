import { ERRORS, type ErrorCode } from './error-catalogue.js';
import type { Bilingual } from '../bilingual.js';

export interface FieldError {
  field: string;
  code: string;
  message_en: string;
  message_ar: string;
}

export interface Suggestion {
  code: string;
  message_en: string;
  message_ar: string;
  [detail: string]: unknown;
}

export interface ApiErrorOptions {
  /** Extra members of the problem document, e.g. `requiredScope`. */
  details?: Record<string, unknown>;
  errors?: FieldError[];
  suggestion?: Suggestion;
  headers?: Record<string, string | number>;
  /** Overrides the catalogue message when the generic one would hide what to do. */
  message?: Bilingual;
  /** Overrides the catalogue status where the contract gives one code two meanings (a path's unknown name is 404, a query's 400). */
  status?: number;
}

/** The one way the service refuses a request: a catalogued code, answered as RFC 9457 problem JSON. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly options: ApiErrorOptions = {},
  ) {
    super(options.message?.en ?? ERRORS[code].message_en);
    this.status = options.status ?? ERRORS[code].status;
  }
}

/** A validation refusal about one field, with its bilingual explanation. */
export function invalidField(field: string, code: string, message: Bilingual): ApiError {
  return new ApiError('VALIDATION_FAILED', { errors: [{ field, code, message_en: message.en, message_ar: message.ar }] });
}
