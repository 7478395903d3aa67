import { PGlite } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import { PGliteWireServer } from './embedded/pglite-wire-server';

export interface EmbeddedPostgresOptions {
  /** Folder that keeps the data across restarts; omit for an in-memory database. */
  readonly dataDir?: string;
}

/**
 * Postgres for the embedded mode: PGlite (Postgres compiled to WebAssembly) behind
 * a loopback socket that speaks the wire protocol. Services reach it with the
 * ordinary `pg` driver and a connection URL, so the embedded and distributed modes
 * run the same SQL through the same driver. Connections take turns on PGlite's one
 * session a protocol round (or a whole transaction) at a time: see PGliteWireServer.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGliteWireServer,
    readonly url: string,
  ) {}

  static async start(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
    const db = options.dataDir ? new PGlite({ dataDir: options.dataDir }) : new PGlite();
    await db.waitReady;
    const server = new PGliteWireServer(db);
    const { host, port } = await server.start('127.0.0.1', 0);
    return new EmbeddedPostgres(db, server, `postgres://postgres@${host}:${port}/postgres?sslmode=disable`);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}
