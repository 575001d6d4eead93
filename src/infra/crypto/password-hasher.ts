import { Injectable, type OnModuleInit } from '@nestjs/common';
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const argon2Async = promisify(argon2);

interface Argon2Parameters {
  memory: number;
  passes: number;
  parallelism: number;
}

/** OWASP's argon2id recommendation: 19 MiB, 2 passes, 1 lane. */
const CURRENT: Argon2Parameters = { memory: 19456, passes: 2, parallelism: 1 };
const SALT_BYTES = 16;
const TAG_BYTES = 32;
const PHC = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{16,})$/;

export interface PasswordCheck {
  valid: boolean;
  /** The hash was made with other parameters than today's: store a new one while the password is at hand. */
  needsRehash: boolean;
}

/**
 * argon2id through Node's built-in `crypto.argon2` (on the libuv thread pool, not the event loop),
 * stored as a PHC string so the parameters can change later: each hash says how it was made.
 */
@Injectable()
export class PasswordHasher implements OnModuleInit {
  private dummy?: Promise<string>;

  onModuleInit(): void {
    this.dummy = this.hash(randomBytes(32).toString('base64'));
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const tag = await derive(password, salt, CURRENT, TAG_BYTES);
    return `$argon2id$v=19$m=${CURRENT.memory},t=${CURRENT.passes},p=${CURRENT.parallelism}$${b64(salt)}$${b64(tag)}`;
  }

  async verify(password: string, phc: string): Promise<PasswordCheck> {
    const match = PHC.exec(phc);
    if (!match) return { valid: false, needsRehash: false };
    const parameters = { memory: Number(match[1]), passes: Number(match[2]), parallelism: Number(match[3]) };
    const salt = Buffer.from(match[4], 'base64');
    const expected = Buffer.from(match[5], 'base64');
    const actual = await derive(password, salt, parameters, expected.length);
    return {
      valid: timingSafeEqual(actual, expected),
      needsRehash:
        parameters.memory !== CURRENT.memory ||
        parameters.passes !== CURRENT.passes ||
        parameters.parallelism !== CURRENT.parallelism ||
        salt.length !== SALT_BYTES ||
        expected.length !== TAG_BYTES,
    };
  }

  /**
   * A hash of no one's password, checked when the address has no password: the answer then costs the
   * same time as a wrong password, so timing does not tell whether an address is registered.
   */
  verifyAgainstNothing(password: string): Promise<PasswordCheck> {
    this.dummy ??= this.hash(randomBytes(32).toString('base64'));
    return this.dummy.then((dummy) => this.verify(password, dummy)).then(() => ({ valid: false, needsRehash: false }));
  }
}

function derive(password: string, salt: Buffer, parameters: Argon2Parameters, tagLength: number): Promise<Buffer> {
  return argon2Async('argon2id', { message: password, nonce: salt, tagLength, ...parameters });
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}
