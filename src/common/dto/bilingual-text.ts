import { ApiProperty } from '@nestjs/swagger';

/** Every text a shopper reads, in English and Arabic (contract section 1). */
export class BilingualText {
  @ApiProperty() en: string;
  @ApiProperty() ar: string;
}
