import type { INestApplicationContext } from '@nestjs/common';

export type Options = Record<string, string | undefined>;

/** A refusal the operator can fix: printed as JSON with its code, exit status 1 (2 for usage). */
export class CommandError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface Command {
  usage: string;
  options: string[];
  /** Everything that can be checked before a database is opened; throws a usage CommandError. */
  check(options: Options): Promise<void>;
  /** Runs the command (checking its options again, so it can be called on its own). */
  run(app: INestApplicationContext, options: Options): Promise<unknown>;
}
