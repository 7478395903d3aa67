import { PGlite } from '@electric-sql/pglite';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
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
    const template = process.env.HERALD_PGLITE_TEMPLATE?.trim() ? await ensureTemplate(process.env.HERALD_PGLITE_TEMPLATE.trim()) : undefined;
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true });
      if (template && !existsSync(join(options.dataDir, 'PG_VERSION'))) cpSync(template.dataDir, options.dataDir, { recursive: true });
      else await initializeDataDirApart(options.dataDir);
    }
    const startParams = options.sharedBuffers ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffers}`] : undefined;
    const db = new PGlite({
      ...(options.dataDir ? { dataDir: options.dataDir } : template ? { loadDataDir: new Blob([templateArchive(template.archive)]) } : {}),
      ...(startParams ? { startParams } : {}),
    });
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
 * HERALD_PGLITE_TEMPLATE (the test runner sets it; `npm start` does not): a folder that keeps
 * one initialized data folder and its archive, made once (initdb, the child below) and then
 * copied for every new database, or loaded by an in-memory one. initdb is most of what
 * starting a new PGlite costs (about 45 s of 50 on a loaded 2-core machine, where loading
 * the archive took 4), and the suite starts a fresh embedded database a few hundred times.
 * Published by rename, so a concurrent maker (another test worker) loses harmlessly.
 */
async function ensureTemplate(folder: string): Promise<{ dataDir: string; archive: string }> {
  const template = { dataDir: join(folder, 'data'), archive: join(folder, 'data.tar') };
  if (existsSync(join(template.dataDir, 'PG_VERSION')) && existsSync(template.archive)) return template;
  mkdirSync(folder, { recursive: true });
  const making = join(folder, `making-${process.pid}-${Date.now()}`);
  mkdirSync(join(making, 'data'), { recursive: true });
  try {
    await initializeDataDirApart(join(making, 'data'), join(making, 'data.tar'));
    try {
      renameSync(join(making, 'data'), template.dataDir);
    } catch {
      // Another maker published it first.
    }
    if (!existsSync(template.archive)) renameSync(join(making, 'data.tar'), template.archive);
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return template;
}

let archiveRead: { path: string; bytes: Buffer } | undefined;

function templateArchive(path: string): Buffer {
  if (archiveRead?.path !== path) archiveRead = { path, bytes: readFileSync(path) };
  return archiveRead.bytes;
}

/**
 * A new data folder is initialized (initdb) in a short-lived child process: initdb's
 * WebAssembly memory (about 600 MB, measured with PGlite 0.5) would otherwise stay in this
 * process's resident set for its whole life. Opening an existing folder costs about 180-280 MB.
 */
async function initializeDataDirApart(dataDir: string, archive?: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  try {
    await promisify(execFile)(process.execPath, [join(__dirname, 'embedded', 'pglite-initdb-child.js'), dataDir, ...(archive ? [archive] : [])], {
      timeout: 120_000,
    });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`could not initialize the embedded database in ${dataDir}${stderr ? `: ${stderr}` : ''}`);
  }
}
