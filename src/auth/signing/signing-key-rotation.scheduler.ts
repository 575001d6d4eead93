import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../infra/config/app-config.js';
import { Recurring } from '../../infra/jobs/recurring.decorator.js';
import { DatabaseSigningKeyStore } from './database-signing-key-store.js';
import { SIGNING_KEY_STORE } from './signing-key-store.js';

/** Rotates the signing key once it is SIGNING_KEY_ROTATION_DAYS old, checked hourly. */
@Injectable()
export class SigningKeyRotationScheduler {
  private readonly logger = new Logger(SigningKeyRotationScheduler.name);

  constructor(
    @Inject(SIGNING_KEY_STORE) private readonly keys: DatabaseSigningKeyStore,
    private readonly config: AppConfig,
  ) {}

  @Recurring('auth.signing-key-rotation', '0 * * * *')
  async rotateWhenDue(): Promise<void> {
    if (await this.keys.rotateIfOlderThan(this.config.SIGNING_KEY_ROTATION_DAYS)) this.logger.log('signing key rotated');
  }
}
