import { ApiProperty } from '@nestjs/swagger';

/** Every text a shopper or merchant reads exists in English and Arabic (contract section 1). */
export interface Bilingual {
  en: string;
  ar: string;
}

/** `Bilingual` as a response field, for the OpenAPI document. */
export class BilingualText implements Bilingual {
  @ApiProperty() en: string;
  @ApiProperty() ar: string;
}
