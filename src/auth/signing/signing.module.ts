import { Module } from '@nestjs/common';
import { AppConfig } from '../../infra/config/app-config.js';
import { loadSecretBox } from '../../infra/crypto/master-key.js';
import { SecretBox } from '../../infra/crypto/secrets.js';
import { DatabaseSigningKeyStore } from './database-signing-key-store.js';
import { SigningKeyRotationScheduler } from './signing-key-rotation.scheduler.js';
import { SIGNING_KEY_STORE } from './signing-key-store.js';

/** Token signing keys: the default store (PostgreSQL, sealed at rest) and its rotation schedule. */
@Module({
  providers: [
    { provide: SecretBox, inject: [AppConfig], useFactory: loadSecretBox },
    { provide: SIGNING_KEY_STORE, useClass: DatabaseSigningKeyStore },
    SigningKeyRotationScheduler,
  ],
  exports: [SIGNING_KEY_STORE],
})
export class SigningModule {}
