import { applyDecorators } from '@nestjs/common';
import { CronExpressionParser } from 'cron-parser';
import { IsString, MaxLength, ValidateBy } from 'class-validator';
import { IANAZone } from 'luxon';

/** Why a text is no five-field cron expression (minute hour day-of-month month day-of-week), as cron-parser reads it; null when it is one. */
export function cronProblem(cron: string): string | null {
  if (cron.trim().split(/\s+/).length !== 5) return 'five fields: minute hour day-of-month month day-of-week';
  try {
    CronExpressionParser.parse(cron, { tz: 'UTC' });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export function isTimezone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

/** A five-field cron expression, read by cron-parser, the library pg-boss schedules with. */
export function CronField() {
  return applyDecorators(
    IsString(),
    MaxLength(120),
    ValidateBy({
      name: 'cron',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && cronProblem(value) === null,
        defaultMessage: (args) => `not a cron expression: ${cronProblem(String(args?.value))}`,
      },
    }),
  );
}

/** An IANA time zone name (`Asia/Riyadh`). */
export function TimeZoneField() {
  return applyDecorators(
    IsString(),
    MaxLength(64),
    ValidateBy({
      name: 'timezone',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isTimezone(value),
        defaultMessage: () => 'not an IANA time zone',
      },
    }),
  );
}
