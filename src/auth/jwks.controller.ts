import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PublicRoute } from './access/decorators.js';
import { SIGNING_KEY_STORE, type SigningKeyStore } from './signing/signing-key-store.js';

@ApiTags('Authentication')
@Controller('.well-known')
export class JwksController {
  constructor(@Inject(SIGNING_KEY_STORE) private readonly keys: SigningKeyStore) {}

  @Get('jwks.json')
  @PublicRoute()
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOperation({ summary: 'Public keys that verify access tokens, current and recently rotated' })
  @ApiOkResponse({ schema: { type: 'object', properties: { keys: { type: 'array', items: { type: 'object' } } } } })
  async jwks() {
    return { keys: await this.keys.publicKeys() };
  }
}
