import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AppConfig } from '../../infra/config/app-config.js';
import { DatabaseSigningKeyStore } from './database-signing-key-store.js';
import { SIGNING_KEY_STORE } from './signing-key-store.js';

/** Rotates the signing key once it is SIGNING_KEY_ROTATION_DAYS old; one instance wins the lock. */
@Injectable()
export class SigningKeyRotationScheduler {
  private readonly logger = new Logger(SigningKeyRotationScheduler.name);

  constructor(
    @Inject(SIGNING_KEY_STORE) private readonly keys: DatabaseSigningKeyStore,
    private readonly config: AppConfig,
  ) {}

  @Cron(CronExpression.EVERY_HOUR, { name: 'signing-key-rotation' })
  async rotateWhenDue(): Promise<void> {
    try {
      if (await this.keys.rotateIfOlderThan(this.config.SIGNING_KEY_ROTATION_DAYS)) this.logger.log('signing key rotated');
    } catch (error) {
      this.logger.error(`signing key rotation failed: ${(error as Error).message}`);
    }
  }
}
