import { ApiProperty } from '@nestjs/swagger';

/**
 * A postal address as carts and orders keep it: a snapshot, so a later edit of a saved address moves
 * no delivery. The address book (account), checkout and orders all speak it.
 */
export interface AddressSnapshot {
  fullName: string;
  phone: string;
  line1: string;
  line2: string;
  district: string;
  city: string;
  region: string;
  postalCode: string;
  country: string;
}

/** Where a delivery goes, as kept on the cart and the order. */
export class ShippingAddressResponse implements AddressSnapshot {
  @ApiProperty() fullName: string;
  @ApiProperty() phone: string;
  @ApiProperty() line1: string;
  @ApiProperty() line2: string;
  @ApiProperty() district: string;
  @ApiProperty() city: string;
  @ApiProperty() region: string;
  @ApiProperty() postalCode: string;
  @ApiProperty({ example: 'SA' }) country: string;
}
