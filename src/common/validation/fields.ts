import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsDefined, IsIn, IsString, Matches, MaxLength, MinLength, ValidateBy, ValidateIf, isEmail } from 'class-validator';
import { LOCALES } from '../locale.js';
import { textProblem } from './text.js';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
/** E.164 after spaces, dashes, dots and parentheses are taken out: `+966 50 123 4567` → `+966501234567`. */
export const PHONE_PATTERN = /^\+[1-9]\d{6,14}$/;

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const compactPhone = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.replace(/[\s\-.()]/g, '') : value);

/**
 * May be left out; `null` is refused (`isDefined`) like any other invalid value. The API's one rule
 * (README, "`null` is a value, not absence"): null is accepted only where documented nullable, i.e. by `NullableField`.
 */
export function OptionalField() {
  return applyDecorators(
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    IsDefined(),
  );
}

/** May be left out or null (null clears the value). */
export function NullableField() {
  return ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);
}

/** An email address, trimmed; `each`: an array of them. */
export function EmailField(options: { each?: boolean } = {}) {
  const each = { each: options.each ?? false };
  return applyDecorators(
    Transform(options.each ? ({ value }) => (Array.isArray(value) ? value.map((item) => trim({ value: item })) : value) : trim),
    IsString(each),
    MaxLength(254, each),
    IsEmailAddress(each),
  );
}

/** class-validator's IsEmail, except that it never throws (validator's isEmail throws on a lone surrogate). */
function IsEmailAddress(options: { each: boolean }) {
  return ValidateBy(
    {
      name: 'isEmail',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && textProblem(value) === null && isEmail(value),
        defaultMessage: () => 'must be an email address',
      },
    },
    options,
  );
}

export function PasswordField() {
  return applyDecorators(IsString(), MinLength(PASSWORD_MIN), MaxLength(PASSWORD_MAX));
}

export function LocaleField() {
  return IsIn(LOCALES);
}

export function PhoneField() {
  return applyDecorators(
    Transform(compactPhone),
    IsString(),
    Matches(PHONE_PATTERN, { message: 'must be an international number: + then country code and number (E.164)' }),
  );
}

/** Trimmed text of at most `max` characters; `min` 1 for a required non-empty value. */
export function TextField(max: number, min = 0) {
  return applyDecorators(Transform(trim), IsString(), MinLength(min), MaxLength(max));
}

/** Set only when the object's `other` property is not. */
export function NotWith(other: string) {
  return ValidateBy({
    name: 'notWith',
    constraints: [other],
    validator: {
      validate: (_value: unknown, args) => (args!.object as Record<string, unknown>)[other] === undefined,
      defaultMessage: () => `must not be given with ${other}`,
    },
  });
}

/** Only together with `other` set to `value` (e.g. a preview's options). */
export function OnlyWith(other: string, value: unknown) {
  return ValidateBy({
    name: 'onlyWith',
    constraints: [`${other}: ${JSON.stringify(value)}`],
    validator: {
      validate: (_value: unknown, args) => (args!.object as Record<string, unknown>)[other] === value,
      defaultMessage: () => `only with ${other}: ${JSON.stringify(value)}`,
    },
  });
}
