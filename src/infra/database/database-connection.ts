/** Where the database is, and how to let go of it: the embedded server or the one DATABASE_URL names. */
export class DatabaseConnection {
  /**
   * Where connections that keep session state go: LISTEN for the change feed, the job queue (its own
   * LISTEN and polling), session-long locks. DATABASE_DIRECT_URL when DATABASE_URL is a pooler in
   * transaction mode, which hands each transaction whichever server connection is free.
   */
  readonly sessionUrl: string;
  /** A streaming replica for heavy reads (DATABASE_REPLICA_URL); see ReportReads. */
  readonly replicaUrl?: string;

  constructor(
    readonly url: string,
    readonly embedded: boolean,
    readonly stop: () => Promise<void> = async () => undefined,
    urls: { direct?: string; replica?: string } = {},
  ) {
    this.sessionUrl = urls.direct ?? url;
    this.replicaUrl = urls.replica;
  }
}
