import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsString } from 'class-validator';
import { OptionalField } from '../../common/validation/fields.js';
import { SCOPES } from '../../common/scopes.js';
import { TRANSPORTS, type Transport } from '../entities/session.entity.js';

export class MintSessionDto {
  @ApiPropertyOptional({
    enum: TRANSPORTS,
    default: 'bearer',
    description: '`cookie` sets the tokens as cookies; the body then holds none.',
  })
  @OptionalField()
  @IsIn(TRANSPORTS)
  transport?: Transport;

  @ApiPropertyOptional({
    type: [String],
    enum: SCOPES,
    description: 'Narrows the key’s scopes. Unknown names, names outside the key’s set and an empty list are refused with INVALID_SCOPE.',
  })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(SCOPES.length * 2)
  @IsString({ each: true })
  scope?: string[];
}
