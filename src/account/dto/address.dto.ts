import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsISO31661Alpha2 } from 'class-validator';
import { OptionalField, PhoneField, TextField } from '../../common/validation/fields.js';

const upperCase = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toUpperCase() : value);

export class CreateAddressDto {
  @ApiPropertyOptional({ maxLength: 60, example: 'Home' })
  @OptionalField()
  @TextField(60)
  label?: string;

  @ApiProperty({ maxLength: 200, example: 'Noura Al-Qahtani' })
  @TextField(200, 1)
  fullName: string;

  @ApiProperty({ example: '+966501234567', description: 'E.164; spaces and dashes are ignored.' })
  @PhoneField()
  phone: string;

  @ApiProperty({ maxLength: 200, example: '7421 King Fahd Road' })
  @TextField(200, 1)
  line1: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @OptionalField()
  @TextField(200)
  line2?: string;

  @ApiPropertyOptional({ maxLength: 100, example: 'Al Olaya' })
  @OptionalField()
  @TextField(100)
  district?: string;

  @ApiProperty({ maxLength: 100, example: 'Riyadh' })
  @TextField(100, 1)
  city: string;

  @ApiPropertyOptional({ maxLength: 100, example: 'Riyadh Province' })
  @OptionalField()
  @TextField(100)
  region?: string;

  @ApiPropertyOptional({ maxLength: 20, example: '12214' })
  @OptionalField()
  @TextField(20)
  postalCode?: string;

  @ApiProperty({ example: 'SA', description: 'ISO 3166-1 alpha-2 country code.' })
  @Transform(upperCase)
  @IsISO31661Alpha2({ message: 'must be an ISO 3166-1 alpha-2 country code' })
  country: string;

  @ApiPropertyOptional({
    description: 'Make this the default shipping address (the previous default stops being one). The first address is the default anyway.',
  })
  @OptionalField()
  @IsBoolean()
  isDefaultShipping?: boolean;
}

/** Any subset of the fields. `isDefaultShipping: false` is refused on the default: make another address the default instead. */
export class UpdateAddressDto extends PartialType(CreateAddressDto, { skipNullProperties: false }) {}
