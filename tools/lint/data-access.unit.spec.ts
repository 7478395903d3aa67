import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * One way to reach the database (issue 40): only repositories (`*.repository.ts`, the typed
 * style) and the platform's own database plumbing run SQL. A controller, guard, consumer or
 * any other class asks a repository for what it needs. Files that break a rule today
 * are listed below with their reason; the lists can only shrink: a listed file that no
 * longer breaks the rule fails the test until it is taken off.
 */
const ROOT = join(__dirname, '..', '..');

/** Libraries under `libs/` that hold groups of libraries rather than one (each scanned library by library). */
const LIBRARY_GROUPS = ['services', 'platform'];
/** `libs/testing` is the tests' own support (temporary databases for specs), outside the rules like every `testing/` folder. */
const NOT_SCANNED = ['testing'];

/** Where the rules hold: every service, every app, every platform library and every other library (domain, contracts, event store). */
function scannedRoots(): string[] {
  const directoriesUnder = (parent: string): string[] =>
    readdirSync(join(ROOT, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  const sourcesUnder = (parent: string): string[] => directoriesUnder(parent).map((name) => join(ROOT, parent, name, 'src'));
  const libraries = directoriesUnder('libs')
    .filter((name) => !LIBRARY_GROUPS.includes(name) && !NOT_SCANNED.includes(name))
    .map((name) => join(ROOT, 'libs', name, 'src'));
  return [...sourcesUnder('libs/services'), join(ROOT, 'apps'), ...sourcesUnder('libs/platform'), ...libraries].filter((path) => existsSync(path));
}

/** Files whose classes may reach the database: the new repositories, the older persistence classes, migrations. */
const PERSISTENCE_FILE = [/\.repository\.ts$/, /-store\.ts$/, /-ledger\.ts$/, /-read-model\.ts$/, /-log\.ts$/, /-queries\.ts$/, /\/migrations\//, /\.migration\.ts$/];
const MIGRATION_FILE = [/\/migrations\//, /\.migration\.ts$/];
/**
 * Files whose name reads as an older persistence class but that hold no database code,
 * each with what it is: they are held to the rules as any other file, and are no
 * persistence class to convert.
 */
const NOT_PERSISTENCE: Record<string, string> = {
  'libs/platform/bus/src/in-process/partition-log.ts': "one partition of the in-process bus: an array in memory, a log as Kafka's partitions are",
};

/** Modules that reach the database; a controller imports none of them. */
const DATABASE_MODULES = ['typeorm', '@nestjs/typeorm', 'pg', 'pg-pool', '@herald/database', '@herald/event-store'];
/** Names that mean database access whatever module they come from. */
const DATABASE_NAMES = ['DataSource', 'EntityManager', 'InjectDataSource', 'QueryRunner'];

/**
 * Non-persistence files that reach the database today, each with why it has not moved yet
 * (none since the engine's run files and the dispatchers' owner lock moved into
 * repositories). A new one moves its access into a repository instead of being listed.
 */
const DATABASE_ACCESS_ALLOWED: Record<string, string> = {};

/**
 * The platform's own database plumbing, which reaches the database by what it is and not
 * on behalf of a service's data: the services' DataSources and migrations, the one-round-trip
 * statement batches repositories send through, the outbox relay's wiring and the
 * embedded bus's journal. Not a to-do list like DATABASE_ACCESS_ALLOWED: each stays, with
 * why. A platform class that reads or writes a service's tables (the credentials and
 * browser-key read models) is a repository like any other. Listed file by file, so a new
 * file here is a decision, and a listed file that no longer reaches the database fails.
 */
const DATABASE_INFRASTRUCTURE: Record<string, string> = {
  'libs/platform/database/src/migrate.ts': 'creates a schema and runs its migrations under an advisory lock',
  'libs/platform/database/src/one-round-trip.ts': 'StatementBatch and inOneRoundTrip: how repositories send several statements in one round trip',
  'libs/platform/database/src/service-data-source.ts': "builds the services' DataSources (pool, session options)",
  'libs/platform/runtime/src/nest/service-database.module.ts': "provides a service's DataSource, migrates its schema at start and checks it for readiness",
  'libs/platform/runtime/src/nest/schema-outbox-relay.ts': "runs a schema's OutboxRelay (@herald/event-store) on the service's DataSource",
  'libs/platform/bus/src/journal/postgres-bus-journal.ts': "the embedded bus's journal: the message bus's own `bus` schema through a pg Pool, no service's data",
  'libs/platform/bus/src/journal/bus-journal.migrations.ts': "the migrations of the bus journal's `bus` schema",
  'libs/event-store/src/event-store.ts': 'the append-only event store itself: streams appended and read in one round trip, on the DataSource a service gives it',
  'libs/event-store/src/outbox-writer.ts': "writeOutbox: the outbox rows a repository writes in its own transaction, in the event store's format",
  'libs/event-store/src/relay/outbox-relay.ts': 'the outbox relay: claims, publishes and deletes outbox rows',
  'libs/event-store/src/timers/timer-poller.ts': 'the timer poller: claims due timers and publishes them',
  'libs/event-store/src/polling/wake-listener.ts': "LISTEN for the relay's and poller's wake-ups on a connection of its own",
};

/** Files that read `SELECT *` (a table's columns, whatever they become) today, each with why. */
const SELECT_STAR_ALLOWED: Record<string, string> = {
  'libs/event-store/src/event-store.ts': 'hot path (readStreams): a lateral subquery whose columns the outer select names',
};

/**
 * The older persistence classes (Store, Ledger, ReadModel, Log, Queries: typed SQL with
 * hand casts) still to become repositories. None is left: the last eight, all on hot
 * paths, moved on 2026-12-06 with their statements unchanged. A file by one of those names
 * fails the test below; new persistence code is a `*.repository.ts` with its own spec.
 */
const NOT_YET_REPOSITORIES: Record<string, string> = {};

/** Repositories without a spec of their own yet, each with why (none today: a new repository comes with its spec). */
const REPOSITORIES_WITHOUT_SPEC: Record<string, string> = {};

/**
 * A cast of query results (`as Row[]`, `as Array<…>`, `as [Row]`), or a declared type on
 * what `.query(` returns (`const rows: Row[] = await db.query(…)`, the same unchecked cast of
 * its `any`): a repository types its rows once, with `returningRows<Row>` or an entity.
 */
function castsRows(source: string): boolean {
  const code = withoutComments(source);
  return (
    /\bas\s+(?:Array<|ReadonlyArray<|\[|[A-Z]\w*(?:<[^>]*>)?\[\])/.test(code) ||
    /\b(?:const|let)\s+[\w[\]{}\s,]+:\s*(?:Array<|ReadonlyArray<|\[|[A-Z]\w*(?:<[^>]*>)?\[\])[^=]*=\s*await\s+[\w.]+(?:\([^)]*\))?\.query\s*[<(]/.test(code)
  );
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist', 'testing'].includes(entry.name) ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every `import ... from '...'` of a file: the module and the names it brings in. */
function importsOf(source: string): Array<{ module: string; names: string[] }> {
  return [...source.matchAll(/import\s+(?:type\s+)?([\s\S]*?)\s+from\s+'([^']+)'/g)].map((match) => ({
    module: match[2],
    names: match[1].replace(/[{}]/g, ' ').split(/[\s,]+/).filter(Boolean),
  }));
}

/** The source without its comments (block comments, and lines that are only a comment). */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** How a file reaches the database, if it does: each way as one line. */
function databaseAccessIn(file: string, source: string): string[] {
  const code = withoutComments(source);
  const imports = importsOf(code);
  return [
    ...(file.endsWith('.controller.ts') ? imports.filter((i) => DATABASE_MODULES.includes(i.module)).map((i) => `imports '${i.module}'`) : []),
    ...imports.flatMap((i) => i.names.filter((name) => DATABASE_NAMES.includes(name)).map((name) => `imports ${name}`)),
    // Not `...query(` (a spread of a function named query).
    ...(/(?<!\.)\.query\s*(?:<[^>]*>)?\(/.test(code) ? ['calls .query('] : []),
    ...(/new\s+EventStore\s*\(/.test(code) ? ['builds an EventStore'] : []),
  ];
}

/** Whether a file's SQL reads `SELECT *` (set-returning functions of its own parameters, `unnest(...)`, aside). */
function selectsStar(source: string): boolean {
  return /select\s+(?:\w+\.)?\*\s+from\s+(?!unnest\s*\()/i.test(withoutComments(source));
}

const isPersistence = (file: string): boolean => !(file in NOT_PERSISTENCE) && PERSISTENCE_FILE.some((pattern) => pattern.test(`/${file}`));
const isMigration = (file: string): boolean => MIGRATION_FILE.some((pattern) => pattern.test(`/${file}`));

/** What the allow-list and the code disagree on: new offences, and listed files that no longer offend. */
function ratchet(offending: ReadonlyMap<string, readonly string[]>, allowed: Record<string, string>): { unlisted: string[]; stale: string[] } {
  return {
    unlisted: [...offending].filter(([file]) => !(file in allowed)).map(([file, ways]) => `${file}: ${ways.join(', ')}`),
    stale: Object.keys(allowed)
      .filter((file) => !offending.has(file))
      .map((file) => `${file} no longer offends: remove it from the allow-list`),
  };
}

describe('data access (one way to reach the database)', () => {
  const serviceFiles = scannedRoots().flatMap(sourceFiles).map((path) => relative(ROOT, path));
  const sqlFiles = [...serviceFiles, ...sourceFiles(join(ROOT, 'libs')).map((path) => relative(ROOT, path))].filter(
    (file, index, all) => all.indexOf(file) === index,
  );

  it('finds the services, their controllers and their persistence classes', () => {
    expect(new Set(serviceFiles.filter((file) => file.startsWith('libs/services/')).map((file) => file.split('/')[2])).size).toBeGreaterThanOrEqual(5);
    expect(serviceFiles.filter((file) => file.endsWith('.controller.ts')).length).toBeGreaterThanOrEqual(20);
    expect(serviceFiles.filter(isPersistence).length).toBeGreaterThanOrEqual(30);
  });

  it('lets only repositories and persistence classes reach the database (every service, app and library)', () => {
    const offending = new Map(
      serviceFiles
        .filter((file) => !isPersistence(file) || file in DATABASE_INFRASTRUCTURE)
        .map((file) => [file, databaseAccessIn(file, readFileSync(join(ROOT, file), 'utf8'))] as const)
        .filter(([, ways]) => ways.length > 0),
    );
    const { unlisted, stale } = ratchet(offending, { ...DATABASE_ACCESS_ALLOWED, ...DATABASE_INFRASTRUCTURE });
    // A new one: move its SQL into a repository (`*.repository.ts`) and call that.
    expect(unlisted).toEqual([]);
    expect(stale).toEqual([]);
  });

  it('reads no `SELECT *` outside migrations', () => {
    const offending = new Map(
      sqlFiles
        .filter((file) => !isMigration(file))
        .filter((file) => selectsStar(readFileSync(join(ROOT, file), 'utf8')))
        .map((file) => [file, ['SELECT *']] as const),
    );
    const { unlisted, stale } = ratchet(offending, SELECT_STAR_ALLOWED);
    // A new one: name the columns, so a column added later never reaches an answer unasked.
    expect(unlisted).toEqual([]);
    expect(stale).toEqual([]);
  });

  it('holds new persistence code to the repository style: no new Store, Ledger, ReadModel, Log or Queries class', () => {
    const older = new Map(
      serviceFiles
        .filter((file) => isPersistence(file) && !isMigration(file) && !file.endsWith('.repository.ts') && !(file in DATABASE_INFRASTRUCTURE))
        .map((file) => [file, ['an older persistence class']] as const),
    );
    const { unlisted, stale } = ratchet(older, NOT_YET_REPOSITORIES);
    // A new one: name it `*.repository.ts`, in the repository style, with its own spec.
    expect(unlisted).toEqual([]);
    expect(stale).toEqual([]);
    // A file listed as no persistence class exists, and its name still reads as one.
    expect(Object.keys(NOT_PERSISTENCE).filter((file) => !serviceFiles.includes(file) || !PERSISTENCE_FILE.some((pattern) => pattern.test(`/${file}`)))).toEqual([]);
  });

  it('gives every repository a spec of its own, run on Postgres and PGlite', () => {
    const missing = new Map(
      serviceFiles
        .filter((file) => file.endsWith('.repository.ts'))
        .filter((file) => {
          const spec = join(ROOT, file.replace(/\.ts$/, '.int.spec.ts'));
          return !existsSync(spec) || !readFileSync(spec, 'utf8').includes('databaseTargets(');
        })
        .map((file) => [file, ['no *.repository.int.spec.ts over databaseTargets()']] as const),
    );
    const { unlisted, stale } = ratchet(missing, REPOSITORIES_WITHOUT_SPEC);
    expect(unlisted).toEqual([]);
    expect(stale).toEqual([]);
  });

  it('casts no rows in a repository', () => {
    const casting = serviceFiles.filter((file) => file.endsWith('.repository.ts')).filter((file) => castsRows(readFileSync(join(ROOT, file), 'utf8')));
    // Type the rows once: `returningRows<Row>(await db.query(...))`, or an entity schema's find.
    expect(casting).toEqual([]);
  });

  it('would catch a cast of rows, not a cast of one value', () => {
    expect(castsRows('const rows = (await this.db.query(sql)) as Row[];')).toBe(true);
    expect(castsRows('const [row] = (await tx.query(sql)) as [{ id: string }];')).toBe(true);
    expect(castsRows('const rows = result.raw as Array<{ id: string }>;')).toBe(true);
    expect(castsRows('const seeded: Array<{ id: string; slug: string }> = await tx.query(sql, params);')).toBe(true);
    expect(castsRows('const [row]: Row[] = await this.db.query(sql);')).toBe(true);
    expect(castsRows('const rows: Row[] = await tx.getRepository(RowEntity).query(sql);')).toBe(true);
    expect(castsRows('const rows: Row[] = returningRows<Row>(await tx.query(sql));')).toBe(false);
    expect(castsRows('const rows = returningRows<Row>(await this.db.query(sql));\nconst kind = value as Kind;')).toBe(false);
  });

  it('would catch each way of reaching the database, and not a spread named query', () => {
    expect(databaseAccessIn('x.controller.ts', `import { InjectDataSource } from '@nestjs/typeorm';\nimport type { DataSource, EntityManager } from 'typeorm';`)).toEqual([
      "imports '@nestjs/typeorm'",
      "imports 'typeorm'",
      'imports InjectDataSource',
      'imports DataSource',
      'imports EntityManager',
    ]);
    expect(databaseAccessIn('x.consumer.ts', 'await this.db.query<Row[]>(`SELECT 1`);')).toEqual(['calls .query(']);
    expect(databaseAccessIn('x.guard.ts', "this.store = new EventStore(db, 'engine');")).toEqual(['builds an EventStore']);
    expect(databaseAccessIn('x.ts', "const spec = { ...query('limit', integer) };\n// db.query( in a comment")).toEqual([]);
  });

  it('would catch a SELECT * of a table, not one of unnest(...)', () => {
    expect(selectsStar('`SELECT * FROM management.api_keys WHERE id = $1`')).toBe(true);
    expect(selectsStar('`SELECT k.* FROM management.api_keys k`')).toBe(true);
    expect(selectsStar('`INSERT INTO t (a, b) SELECT * FROM unnest($1::text[], $2::int[])`')).toBe(false);
  });

  it('answers with the offences not listed and the listed files that no longer offend', () => {
    expect(ratchet(new Map([['a.ts', ['calls .query(']]]), { 'b.ts': 'reason' })).toEqual({
      unlisted: ['a.ts: calls .query('],
      stale: ['b.ts no longer offends: remove it from the allow-list'],
    });
  });
});
