import { ApiProperty } from '@nestjs/swagger';
import { LOCALES } from '../../common/locale.js';
import { ShippingAddressResponse } from '../../common/address.js';

export class CodeSentResponse {
  @ApiProperty({
    enum: ['verification_sent', 'code_sent'],
    description: 'The same answer whether or not the address has an account: a code is on its way either way.',
  })
  status: 'verification_sent' | 'code_sent';

  @ApiProperty({ example: 'noura@example.com' })
  email: string;

  @ApiProperty({ format: 'date-time', description: 'When the emailed code stops working (10 minutes).' })
  expiresAt: string;
}

export class ProfileResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() email: string;
  @ApiProperty() firstName: string;
  @ApiProperty() lastName: string;
  @ApiProperty({ type: String, nullable: true, example: '+966501234567' }) phone: string | null;
  @ApiProperty({ enum: LOCALES }) locale: string;
  @ApiProperty() marketingOptIn: boolean;
  @ApiProperty({ description: 'The shopper proved the address with an emailed code.' }) emailVerified: boolean;
  @ApiProperty({ description: 'False for a shopper who signs in with emailed codes only.' }) hasPassword: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

/** A saved address: the fields a delivery uses, plus what the shopper keeps it by. */
export class AddressResponse extends ShippingAddressResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() label: string;
  @ApiProperty() isDefaultShipping: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class AddressPage {
  @ApiProperty({ type: [AddressResponse], description: 'The default shipping address first, then the newest.' })
  items: AddressResponse[];

  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}
