import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsObject, IsString, Matches, MaxLength } from 'class-validator';
import { NullableField, OptionalField, TextField } from '../../common/validation/fields.js';
import { CONNECTION_KINDS, type ConnectionKind, type PinnedHostKey } from '../entities/connection.entity.js';
import { TEMPLATE_SHAPE } from '../connectors/file-template.js';
import { immutableDoc, SERVER_OWNED_OBJECT, ServerOwned } from './read-back.js';
import { SOURCE_FORMATS, type SourceFormat } from '../../infra/tabular/formats.js';

export class CreateConnectionDto {
  @ApiProperty({ maxLength: 120 }) @TextField(120, 1) name: string;
  @ApiProperty({ enum: CONNECTION_KINDS }) @IsIn(CONNECTION_KINDS) kind: ConnectionKind;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'By kind (contract section 9): sftp `{ host, port?, username, basePath }`; object_storage `{ endpoint?, region, bucket, prefix, forcePathStyle? }`; database_read `{ host, port?, database, username, query }`; platform_drop `{ prefix }`.',
  })
  @IsObject()
  config: Record<string, unknown>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Write-only. sftp `{ password }` or `{ privateKey, passphrase? }`; object_storage `{ accessKeyId, secretAccessKey }`; database_read `{ password }`; platform_drop none.',
  })
  @OptionalField()
  @IsObject()
  credentials?: Record<string, unknown>;
}

/**
 * `credentials` as GET describes them (`{ set, fields }`): no credential of any kind has those members,
 * so such a value is the description sent back, not credentials to store.
 */
function isCredentialsDescription(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { set, fields, ...rest } = value as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    typeof set === 'boolean' &&
    Array.isArray(fields) &&
    fields.every((field) => typeof field === 'string')
  );
}

/** What is given changes; or the connection as GET returned it, changed. */
export class UpdateConnectionDto {
  @ApiPropertyOptional({ maxLength: 120 }) @OptionalField() @TextField(120, 1) name?: string;
  @ApiPropertyOptional({ enum: CONNECTION_KINDS, description: immutableDoc('create a new connection of the other kind.') })
  @OptionalField()
  @IsIn(CONNECTION_KINDS)
  kind?: ConnectionKind;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The whole config of the connection’s kind; a change returns the connection to untested.',
  })
  @OptionalField()
  @IsObject()
  config?: Record<string, unknown>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Write-only: replaces the credentials; a change returns the connection to untested. `{ set, fields }` as GET describes them is ignored: the stored credentials stay.',
  })
  @OptionalField()
  @Transform(({ value }) => (isCredentialsDescription(value) ? undefined : value))
  @IsObject()
  credentials?: Record<string, unknown>;
  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    properties: { algorithm: { type: 'string' }, fingerprint: { type: 'string' }, pinnedAt: { type: 'string', format: 'date-time' } },
    description:
      '`null` clears an SFTP host key pin, so the next test pins the key the server presents (nothing to clear on other kinds). The pin as GET returns it is ignored; any other value is 400 validation_failed with code `immutable`: only a passed test pins a key.',
  })
  @NullableField()
  @IsObject()
  hostKey?: PinnedHostKey | null;
  @ServerOwned() id?: undefined;
  @ServerOwned() status?: undefined;
  @ServerOwned(SERVER_OWNED_OBJECT) lastTest?: undefined;
  @ServerOwned() createdAt?: undefined;
  @ServerOwned() updatedAt?: undefined;
}

export class ConnectionFieldsQueryDto {
  @ApiPropertyOptional({
    description: 'File connections: the file name template (`stock-{yyyy}{MM}{dd}.csv`); the newest matching file is read.',
  })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  @Matches(TEMPLATE_SHAPE, { message: 'letters, digits, . _ - *, and the tokens {yyyy} {yy} {MM} {dd} {HH} {mm} {ss}' })
  template?: string;

  @ApiPropertyOptional({ enum: SOURCE_FORMATS, description: 'Defaults to the template’s extension.' })
  @OptionalField()
  @IsIn(SOURCE_FORMATS)
  format?: SourceFormat;
}
