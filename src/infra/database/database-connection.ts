/** Where the database is, and how to let go of it: the embedded server or the one DATABASE_URL names. */
export class DatabaseConnection {
  constructor(
    readonly url: string,
    readonly embedded: boolean,
    readonly stop: () => Promise<void> = async () => undefined,
  ) {}
}
