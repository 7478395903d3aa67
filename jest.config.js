/**
 * Test tiers by file name: *.unit.spec.ts are pure (no I/O, no clock), *.int.spec.ts
 * use a real database and bus (embedded always; Postgres and Kafka too when
 * HERALD_TEST_DATABASE_URL / HERALD_TEST_KAFKA_BROKERS are set), *.e2e.spec.ts drive
 * whole processes over HTTP.
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

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
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.js'],
  // Integration tests wait on rebalances of a real broker; unit tests finish in ms anyway.
  testTimeout: 120_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['**/*.unit.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['**/*.int.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['**/*.e2e.spec.ts'] },
  ],
};
