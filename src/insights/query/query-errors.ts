/** What a report or builder query in a body can be refused with, before anything runs. */
export const QUERY_ERRORS = [
  'VALIDATION_FAILED',
  'MALFORMED_BODY',
  'invalid_range',
  'unknown_measure',
  'unknown_dimension',
  'unknown_dimension_value',
  'too_many_dimensions',
  'unsupported_combination',
] as const;
