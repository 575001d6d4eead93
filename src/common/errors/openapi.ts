import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { codeIn, ERROR_CODES, ERRORS, type ErrorCode, type ErrorDialect } from './error-catalogue.js';

class FieldErrorDocument {
  @ApiProperty({ example: 'scope' }) field: string;
  @ApiProperty({ example: 'isArray' }) code: string;
  @ApiProperty() message_en: string;
  @ApiProperty() message_ar: string;
}

class SuggestionDocument {
  @ApiProperty() code: string;
  @ApiProperty() message_en: string;
  @ApiProperty() message_ar: string;
}

/** RFC 9457 problem document, the body of every answer with status >= 400. */
export class ProblemDocument {
  @ApiProperty({ example: 'about:blank' }) type: string;
  @ApiProperty({ example: 'Forbidden' }) title: string;
  @ApiProperty({ type: 'integer', example: 403 }) status: number;
  @ApiProperty({
    enum: [...new Set([...ERROR_CODES, ...ERROR_CODES.map((code) => codeIn('admin', code))])],
    example: 'INSUFFICIENT_SCOPE',
    description: 'UPPER_SNAKE on the storefront; lower_snake under /admin.',
  })
  code: string;
  @ApiProperty() message_en: string;
  @ApiProperty() message_ar: string;
  @ApiProperty({ description: 'Also sent as the X-Request-Id header.' }) requestId: string;
  @ApiPropertyOptional({ description: 'INSUFFICIENT_SCOPE only: the scope the endpoint needs.' }) requiredScope?: string;
  @ApiPropertyOptional({ description: 'missing_permission only: the permission the request needs.' }) requiredPermission?: string;
  @ApiPropertyOptional({ description: 'plan_not_entitled only: the cheapest plan that includes it.' }) requiredPlan?: string;
  @ApiPropertyOptional({ type: [FieldErrorDocument] }) errors?: FieldErrorDocument[];
  @ApiPropertyOptional({ type: SuggestionDocument }) suggestion?: SuggestionDocument;
}

/** Documents the problem answers a route can give, one response per status listing its codes (as `dialect` writes them). */
export function ApiProblemResponses(codes: ErrorCode[], dialect: ErrorDialect = 'storefront') {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  return applyDecorators(
    ApiExtraModels(ProblemDocument),
    ...[...byStatus].map(([status, statusCodes]) =>
      ApiResponse({
        status,
        description: statusCodes.map((code) => `${codeIn(dialect, code)}: ${ERRORS[code].message_en}`).join('\n\n'),
        content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDocument) } } },
      }),
    ),
  );
}
