import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { mkdirSync } from 'node:fs';

export interface EmbeddedPostgresOptions {
  /** Folder that keeps the data across restarts; omit for an in-memory database. */
  readonly dataDir?: string;
  /** Connections the socket multiplexer accepts (queries still run one at a time). */
  readonly maxConnections?: number;
}

/**
 * Postgres for the embedded mode: PGlite (Postgres compiled to WebAssembly) behind
 * a loopback socket that speaks the wire protocol. Services reach it with the
 * ordinary `pg` driver and a connection URL, so the embedded and distributed modes
 * run the same SQL through the same driver. The multiplexer keeps a transaction's
 * statements together: while one connection is inside a transaction, the others wait.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
  ) {}

  static async start(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
    const db = options.dataDir ? new PGlite({ dataDir: options.dataDir }) : new PGlite();
    await db.waitReady;
    const server = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: 0,
      maxConnections: options.maxConnections ?? 100,
    });
    await server.start();
    const address = server.getServerConn();
    return new EmbeddedPostgres(db, server, `postgres://postgres@${address}/postgres?sslmode=disable`);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}
