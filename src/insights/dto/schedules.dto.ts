import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { EmailField, OptionalField, TextField } from '../../common/validation/fields.js';
import { FILE_NAME_PATTERN, renderTemplate, TEMPLATE_SHAPE } from '../../data-hub/connectors/file-template.js';
import { DELIVERY_STATUSES, DELIVERY_TRIGGERS } from '../entities/insights-delivery.entity.js';
import { FILE_FORMATS, type FileFormat } from '../entities/insights-export.entity.js';
import { FREQUENCIES, WEEKDAYS, type Frequency, type Weekday } from '../entities/insights-schedule.entity.js';
import { ExportErrorDoc } from './exports.dto.js';

export const MAX_RECIPIENTS = 20;

export type ScheduleDestinationDto = EmailDestinationDto | ConnectionDestinationDto;

/** Given only with the cadence's `frequency` of `frequency`. */
function OnlyFor(frequency: Frequency) {
  return ValidateBy({
    name: 'onlyFor',
    constraints: [frequency],
    validator: {
      validate: (_value: unknown, args) => (args!.object as CadenceDto).frequency === frequency,
      defaultMessage: () => `goes with frequency ${frequency} only`,
    },
  });
}

export class CadenceDto {
  @ApiProperty({ enum: FREQUENCIES })
  @IsIn(FREQUENCIES)
  frequency: Frequency;

  @ApiProperty({ example: '08:00', description: '24-hour local time in the store’s time zone (daylight saving followed).' })
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'must be a time of day, HH:MM (24-hour)' })
  time: string;

  @ApiPropertyOptional({ enum: WEEKDAYS, description: 'Weekly: the day it is delivered on.' })
  @ValidateIf((cadence: CadenceDto) => cadence.frequency === 'weekly' || cadence.weekday !== undefined)
  @IsIn(WEEKDAYS)
  @OnlyFor('weekly')
  weekday?: Weekday;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 31,
    description: 'Monthly: the day of the month; a month without it delivers on its last day.',
  })
  @ValidateIf((cadence: CadenceDto) => cadence.frequency === 'monthly' || cadence.dayOfMonth !== undefined)
  @IsInt()
  @Min(1)
  @Max(31)
  @OnlyFor('monthly')
  dayOfMonth?: number;
}

const DESTINATION_KINDS = ['email', 'connection'] as const;

/** What every destination has: its `kind`, which decides the rest of its shape. */
class DestinationDto {
  @ApiProperty({ enum: DESTINATION_KINDS })
  @IsIn(DESTINATION_KINDS)
  kind: (typeof DESTINATION_KINDS)[number];
}

export class EmailDestinationDto extends DestinationDto {
  @ApiProperty({ enum: ['email'], description: 'Email, with the file attached (up to 10 MB).' })
  override kind: 'email';

  @ApiProperty({ type: [String], example: ['owner@shop.example'], maxItems: MAX_RECIPIENTS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_RECIPIENTS)
  @ArrayUnique((email: unknown) => (typeof email === 'string' ? email.toLowerCase() : email))
  @EmailField({ each: true })
  recipients: string[];
}

/** A template an export fills in: the data hub's shape without `*`, naming one file the data hub accepts. */
function namesOneFile(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    TEMPLATE_SHAPE.test(value) &&
    !value.includes('*') &&
    FILE_NAME_PATTERN.test(renderTemplate(value, new Date(0), 'UTC'))
  );
}

export class ConnectionDestinationDto extends DestinationDto {
  @ApiProperty({
    enum: ['connection'],
    description:
      'Pro plan: the file written to a data hub file connection of the store (sftp, object_storage or platform_drop), which must be active when a delivery is made. No size limit.',
  })
  override kind: 'connection';

  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  connectionId: string;

  @ApiProperty({
    example: 'sales-{yyyy}{MM}{dd}.csv',
    maxLength: 200,
    description:
      'The file’s name: letters, digits, `.`, `_`, `-` and the tokens {yyyy} {yy} {MM} {dd} {HH} {mm} {ss}, filled in with the due time in the store’s time zone; its extension is the schedule’s format. A file of that name is replaced.',
  })
  @IsString()
  @MaxLength(200)
  // Named `matches`: a field of the wrong shape, as the data hub's own file templates are reported.
  @ValidateBy({ name: 'matches', validator: { validate: namesOneFile, defaultMessage: () => 'must be a file name template without *' } })
  pathTemplate: string;
}

/**
 * The destination as the class of its `kind`: an unknown kind is checked as `DestinationDto`, and refused;
 * what is no object at all (null, a list) is left as it is, for `IsObject` to refuse. (class-transformer's
 * own discriminator reads `kind` of every item of a list, and threw on `[null]`.)
 */
function destinationOf({ obj, key }: { obj: Record<string, unknown>; key: string }): unknown {
  const value = obj[key];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const kind = (value as { kind?: unknown }).kind;
  const type = kind === 'email' ? EmailDestinationDto : kind === 'connection' ? ConnectionDestinationDto : DestinationDto;
  return plainToInstance(type, value);
}

const DESTINATION_SCHEMA = {
  oneOf: [{ $ref: getSchemaPath(EmailDestinationDto) }, { $ref: getSchemaPath(ConnectionDestinationDto) }],
  discriminator: {
    propertyName: 'kind',
    mapping: { email: getSchemaPath(EmailDestinationDto), connection: getSchemaPath(ConnectionDestinationDto) },
  },
};

export class CreateScheduleDto {
  @ApiProperty({ format: 'uuid', description: 'The saved report it delivers.' })
  @IsUUID()
  savedReportId: string;

  @ApiProperty({ example: 'Monday sales', maxLength: 120 })
  @TextField(120, 1)
  name: string;

  @ApiProperty({ type: CadenceDto })
  @IsObject()
  @ValidateNested()
  @Type(() => CadenceDto)
  cadence: CadenceDto;

  @ApiProperty({ enum: FILE_FORMATS })
  @IsIn(FILE_FORMATS)
  format: FileFormat;

  @ApiProperty(DESTINATION_SCHEMA)
  @IsObject()
  @ValidateNested()
  @Transform(destinationOf)
  destination: ScheduleDestinationDto;

  @ApiPropertyOptional({ default: false, description: 'A due time whose report has no rows is recorded as skipped, and nothing is sent.' })
  @OptionalField()
  @IsBoolean()
  skipEmpty?: boolean;

  @ApiPropertyOptional({ default: false, description: 'A paused schedule delivers nothing until resumed.' })
  @OptionalField()
  @IsBoolean()
  paused?: boolean;
}

/** `PATCH /schedules/{id}`: what is given changes, what is left out stays. */
export class UpdateScheduleDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @OptionalField()
  @IsUUID()
  savedReportId?: string;

  @ApiPropertyOptional({ maxLength: 120 })
  @OptionalField()
  @TextField(120, 1)
  name?: string;

  @ApiPropertyOptional({ type: CadenceDto, description: 'Replaces the whole cadence.' })
  @OptionalField()
  @IsObject()
  @ValidateNested()
  @Type(() => CadenceDto)
  cadence?: CadenceDto;

  @ApiPropertyOptional({ enum: FILE_FORMATS })
  @OptionalField()
  @IsIn(FILE_FORMATS)
  format?: FileFormat;

  @ApiPropertyOptional(DESTINATION_SCHEMA)
  @OptionalField()
  @IsObject()
  @ValidateNested()
  @Transform(destinationOf)
  destination?: ScheduleDestinationDto;

  @ApiPropertyOptional()
  @OptionalField()
  @IsBoolean()
  skipEmpty?: boolean;

  @ApiPropertyOptional({ description: 'Pausing stops deliveries; resuming schedules the next due time from now.' })
  @OptionalField()
  @IsBoolean()
  paused?: boolean;
}

export class DeliveryDoc {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) scheduleId: string;
  @ApiProperty({ format: 'date-time', description: 'The due time it delivers (now, for one asked for by hand).' }) dueAt: string;
  @ApiProperty({ enum: DELIVERY_TRIGGERS }) trigger: string;
  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description:
      'queued and running until done; then delivered, failed (after 3 attempts, the owner told by email) or skipped (empty report).',
  })
  status: string;
  @ApiProperty({ type: 'integer' }) attempts: number;
  @ApiProperty({ type: 'integer', nullable: true }) rows: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) bytes: number | null;
  @ApiProperty({
    type: [String],
    description:
      'Recipients whose email has gone out; or, to a connection, the connection’s name and the file written (`Drop/sales-20260105.csv`).',
  })
  sentTo: string[];
  @ApiPropertyOptional({ type: ExportErrorDoc, description: 'Why the last attempt failed.' }) error?: ExportErrorDoc;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) startedAt: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) finishedAt: string | null;
}

export class DeliveryPageDoc {
  @ApiProperty({ type: [DeliveryDoc] }) items: DeliveryDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}

export class ScheduleDoc {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) savedReportId: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: CadenceDto }) cadence: CadenceDto;
  @ApiProperty({ example: 'Asia/Riyadh', description: 'The store’s time zone, which the cadence is read in.' }) timezone: string;
  @ApiProperty({ enum: FILE_FORMATS }) format: string;
  @ApiProperty(DESTINATION_SCHEMA) destination: ScheduleDestinationDto;
  @ApiProperty() skipEmpty: boolean;
  @ApiProperty() paused: boolean;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'The next due time; null while paused.' })
  nextRunAt: string | null;
  @ApiProperty({ type: DeliveryDoc, nullable: true }) lastDelivery: DeliveryDoc | null;
  @ApiProperty({ format: 'uuid' }) createdBy: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class SchedulePageDoc {
  @ApiProperty({ type: [ScheduleDoc] }) items: ScheduleDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}
