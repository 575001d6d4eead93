import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { sql } from 'kysely';
import pg from 'pg';
import { DatabaseConnection } from './database-connection.js';

type Listener = (payload: string) => void;

/** How the feed's connection shows in pg_stat_activity. */
export const CHANGE_FEED_APPLICATION = 'storefront-change-feed';

/**
 * Cross-instance invalidation over PostgreSQL LISTEN/NOTIFY: whoever changes a cached record
 * publishes its key, and every instance (the command line included) drops its copy.
 */
@Injectable()
export class ChangeFeed implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ChangeFeed.name);
  private readonly listeners = new Map<string, Listener[]>();
  private readonly reconnectListeners: (() => void)[] = [];
  private client?: pg.Client;
  private closed = false;
  private reconnecting = false;

  constructor(
    private readonly em: EntityManager,
    private readonly database: DatabaseConnection,
  ) {}

  subscribe(channel: string, listener: Listener): void {
    const isNewChannel = !this.listeners.has(channel);
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
    if (isNewChannel && this.client) void this.client.query(`listen ${pg.escapeIdentifier(channel)}`);
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  async publish(channel: string, payload: string): Promise<void> {
    await sql`select pg_notify(${channel}, ${payload})`.execute(this.em.getKysely());
  }

  async onModuleInit(): Promise<void> {
    await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.database.sessionUrl, application_name: CHANGE_FEED_APPLICATION });
    client.on('notification', ({ channel, payload }) => {
      for (const listener of this.listeners.get(channel) ?? []) listener(payload ?? '');
    });
    const lost = (reason: string) => {
      if (this.closed || this.client !== client) return;
      this.client = undefined;
      this.logger.warn(`change feed connection lost (${reason}); reconnecting`);
      void this.reconnect();
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('connection ended'));
    try {
      await client.connect();
      for (const channel of this.listeners.keys()) await client.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
  }

  /** Retries every second until connected; whatever was missed meanwhile is dropped by the reconnect listeners. */
  private async reconnect(): Promise<void> {
    if (this.reconnecting) return;
    this.reconnecting = true;
    try {
      while (!this.closed) {
        try {
          await this.connect();
          for (const listener of this.reconnectListeners) listener();
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    } finally {
      this.reconnecting = false;
    }
  }
}
