import { IsBoolean, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { NotWith, OptionalField, TextField } from '../../common/validation/fields.js';
import type { ConnectionKind } from '../entities/connection.entity.js';

/**
 * What each kind of connector is configured with: its config and credentials as DTOs (checked when a
 * connection is made or changed) and as the fields of a form (`GET /connectors`).
 */

/** A host name or an address (IPv6 in brackets or bare). */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[?[0-9A-Fa-f:.]{2,45}\]?)$/;
/** A path on the server: printable characters, no control characters. */
const SERVER_PATH = /^[^\u0000-\u001f\u007f]{1,1024}$/;
/** A folder inside the store's drop or a bucket: segments of safe characters, no leading slash, no `.` or `..`. */
const FOLDER = /^(?!.*\.\.)(?:(?!\.(?:\/|$))[A-Za-z0-9._-]+(?:\/(?!\.(?:\/|$))[A-Za-z0-9._-]+)*\/?)?$/;
/** S3's rules for bucket names (3–63 lower-case letters, digits, dots and hyphens). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function PortField() {
  return (target: object, property: string) => {
    OptionalField()(target, property);
    IsInt()(target, property);
    Min(1)(target, property);
    Max(65535)(target, property);
  };
}

export class SftpConfigDto {
  @Matches(HOST) @MaxLength(253) host: string;
  @PortField() port?: number;
  @TextField(100, 1) username: string;
  @IsString() @Matches(SERVER_PATH) basePath: string;
}

export class SftpCredentialsDto {
  @ValidateIf((credentials: SftpCredentialsDto) => credentials.privateKey === undefined || credentials.password !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  @NotWith('privateKey')
  password?: string;

  @OptionalField() @IsString() @MinLength(1) @MaxLength(16_384) privateKey?: string;
  @OptionalField() @IsString() @MaxLength(1024) @NotWith('password') passphrase?: string;
}

export class ObjectStorageConfigDto {
  @OptionalField()
  @IsString()
  @MaxLength(2048)
  @Matches(/^https?:\/\/[^\s/?#]+\/?$/, { message: 'must be an http(s) origin' })
  endpoint?: string;
  @IsString() @Matches(/^[a-z0-9-]{2,50}$/) region: string;
  @IsString() @Matches(BUCKET) bucket: string;
  @IsString() @MaxLength(1024) @Matches(FOLDER) prefix: string;
  @OptionalField() @IsBoolean() forcePathStyle?: boolean;
}

export class ObjectStorageCredentialsDto {
  @IsString() @MinLength(1) @MaxLength(256) accessKeyId: string;
  @IsString() @MinLength(1) @MaxLength(256) secretAccessKey: string;
}

export class DatabaseReadConfigDto {
  @Matches(HOST) @MaxLength(253) host: string;
  @PortField() port?: number;
  @TextField(63, 1) database: string;
  @TextField(63, 1) username: string;
  @IsString() @MinLength(1) @MaxLength(20_000) query: string;
}

export class DatabaseReadCredentialsDto {
  @IsString() @MinLength(1) @MaxLength(1024) password: string;
}

export class PlatformDropConfigDto {
  @IsString() @MaxLength(200) @Matches(FOLDER) prefix: string;
}

/** A member of a kind's `config` or `credentials` as a form asks for it. */
export interface ConnectorField {
  name: string;
  input: 'text' | 'number' | 'checkbox' | 'textarea' | 'secret';
  required: boolean;
}

/**
 * The members of each kind's config and credentials above (`GET /connectors`), in the order a form shows
 * them; the kinds in the order a form offers them. An SFTP server takes a password or a private key (with
 * its passphrase), so none of its credentials is required alone.
 */
export const CONNECTOR_FORMS: readonly { kind: ConnectionKind; config: ConnectorField[]; credentials: ConnectorField[] }[] = [
  { kind: 'platform_drop', config: [{ name: 'prefix', input: 'text', required: false }], credentials: [] },
  {
    kind: 'sftp',
    config: [
      { name: 'host', input: 'text', required: true },
      { name: 'port', input: 'number', required: false },
      { name: 'username', input: 'text', required: true },
      { name: 'basePath', input: 'text', required: true },
    ],
    credentials: [
      { name: 'password', input: 'secret', required: false },
      { name: 'privateKey', input: 'textarea', required: false },
      { name: 'passphrase', input: 'secret', required: false },
    ],
  },
  {
    kind: 'object_storage',
    config: [
      { name: 'endpoint', input: 'text', required: false },
      { name: 'region', input: 'text', required: true },
      { name: 'bucket', input: 'text', required: true },
      { name: 'prefix', input: 'text', required: false },
      { name: 'forcePathStyle', input: 'checkbox', required: false },
    ],
    credentials: [
      { name: 'accessKeyId', input: 'secret', required: true },
      { name: 'secretAccessKey', input: 'secret', required: true },
    ],
  },
  {
    kind: 'database_read',
    config: [
      { name: 'host', input: 'text', required: true },
      { name: 'port', input: 'number', required: false },
      { name: 'database', input: 'text', required: true },
      { name: 'username', input: 'text', required: true },
      { name: 'query', input: 'textarea', required: true },
    ],
    credentials: [{ name: 'password', input: 'secret', required: true }],
  },
];
