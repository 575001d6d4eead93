import pg from 'pg';

/** Reads until `accept` likes the value or `ms` pass; returns the last value read. For effects that arrive asynchronously (NOTIFY). */
export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!accept(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  return value;
}

/** One short-lived connection for set-up work (creating, dropping, blocking databases). */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
