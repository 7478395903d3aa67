import { PGlite } from '@electric-sql/pglite';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGliteWireServer } from './embedded/pglite-wire-server';

export interface EmbeddedPostgresOptions {
  /** Folder that keeps the data across restarts; omit for an in-memory database. */
  readonly dataDir?: string;
  /**
   * Postgres's page cache inside PGlite's WebAssembly memory (default 128MB, the server's
   * own default). Whatever is touched stays resident for the process's life, while the
   * pages themselves are files the OS caches anyway: a smaller cache keeps the embedded
   * process under 1 GB under a long overload at the same CPU per delivery
   * (bench/RESULTS.md, "Embedded end to end").
   */
  readonly sharedBuffers?: string;
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
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true });
      await initializeDataDirApart(options.dataDir);
    }
    const startParams = options.sharedBuffers ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffers}`] : undefined;
    const db = new PGlite({ ...(options.dataDir ? { dataDir: options.dataDir } : {}), ...(startParams ? { startParams } : {}) });
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

/**
 * A new data folder is initialized (initdb) in a short-lived child process: initdb's
 * WebAssembly memory (about 600 MB, measured with PGlite 0.5) would otherwise stay in this
 * process's resident set for its whole life. Opening an existing folder costs about 180-280 MB.
 */
async function initializeDataDirApart(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  try {
    await promisify(execFile)(process.execPath, [join(__dirname, 'embedded', 'pglite-initdb-child.js'), dataDir], {
      timeout: 120_000,
    });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`could not initialize the embedded database in ${dataDir}${stderr ? `: ${stderr}` : ''}`);
  }
}
