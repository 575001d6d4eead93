import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { EmailField, OptionalField, PASSWORD_MAX } from '../../../common/validation/fields.js';
import { TRANSPORTS, type Transport } from '../../entities/session.entity.js';

export class StaffSignInDto {
  @ApiProperty({ format: 'uuid', description: 'The store the staff member belongs to.' })
  @IsUUID('all')
  storeId: string;

  @ApiProperty({ example: 'owner@demo.store', maxLength: 254 })
  @EmailField()
  email: string;

  @ApiProperty({ minLength: 1, maxLength: PASSWORD_MAX, format: 'password' })
  @IsString()
  @MinLength(1)
  @MaxLength(PASSWORD_MAX)
  password: string;

  @ApiPropertyOptional({
    enum: TRANSPORTS,
    default: 'bearer',
    description: '`cookie` sets adm_access, adm_refresh and adm_csrf; the body then holds no token.',
  })
  @OptionalField()
  @IsIn(TRANSPORTS)
  transport?: Transport;
}
