/**
 * Test tiers by file name: *.unit.spec.ts are pure (no I/O, no clock), *.int.spec.ts
 * use a real database and bus (embedded always; Postgres and Kafka too when
 * HERALD_TEST_DATABASE_URL / HERALD_TEST_KAFKA_BROKERS are set), *.e2e.spec.ts drive
 * whole processes over HTTP.
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/**
 * Every fresh embedded database of the run (a few hundred) starts from one initialized
 * PGlite data folder instead of running initdb (see EmbeddedPostgres); test workers and the
 * processes tests spawn inherit the variable. Keyed by PGlite's version.
 */
const pgliteVersion = JSON.parse(readFileSync(join(__dirname, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version;
process.env.HERALD_PGLITE_TEMPLATE ??= join(require('node:os').tmpdir(), `herald-pglite-template-${pgliteVersion}`);

const tsconfig = JSON.parse(readFileSync(join(__dirname, 'tsconfig.base.json'), 'utf8'));
const moduleNameMapper = Object.fromEntries(
  Object.entries(tsconfig.compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);

const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper,
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/e2e', '<rootDir>/k8s', '<rootDir>/tools', '<rootDir>/bench'],
};

module.exports = {
  verbose: true,
  // Two test files at a time. Most of a file's time is spent waiting on a broker, a database
  // or a child process, so on a 2-core machine two workers finish the suite in well under the
  // time of one; more would starve the one Kafka broker and Postgres the files share.
  // `npm run jest -- --maxWorkers=N` overrides it.
  maxWorkers: 2,
  // A worker that ran a file holding more than this much heap is replaced before its next
  // file. Workers otherwise keep what each file's modules leave behind and grew to 3-4 GB
  // over a CI run, paying for it in garbage collection: on management-api's 37 integration
  // files a fresh worker per file ran in 210 s against 237 and 244 s without (2026-12-07).
  workerIdleMemoryLimit: '512MB',
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.js'],
  // Integration tests wait on rebalances of a real broker; unit tests finish in ms anyway.
  testTimeout: 120_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['**/*.unit.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['**/*.int.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['**/*.e2e.spec.ts'] },
  ],
};
