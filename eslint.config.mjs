// Lint enforces the architecture: domain libraries (message contracts, the pure
// workflow interpreter) cannot import Nest, kafkajs, TypeORM, pg or any other I/O
// framework; service libraries cannot import each other (they talk over Kafka);
// only the launchers import services; the operator console (apps/console, a browser
// app) imports no Herald library: it reads the public HTTP APIs like any client.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const IO_FRAMEWORKS = [
  '@nestjs/*',
  'kafkajs',
  'typeorm',
  'pg',
  'pg-*',
  '@electric-sql/*',
  'fastify',
  '@fastify/*',
  'prom-client',
  'axios',
  'node-jq',
  'nodemailer',
];

export default [
  { ignores: ['**/node_modules/**', '**/dist/**', '.nx/**', '.herald/**', 'scripts/kafka/work/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allowCircularSelfDependency: false,
          // start-service.ts imports only the chosen service (start-up time); other apps import
          // them all statically. No bundler splits chunks here, so mixing both is harmless.
          checkDynamicDependenciesExceptions: ['@herald/*'],
          depConstraints: [
            {
              sourceTag: 'type:domain',
              onlyDependOnLibsWithTags: ['type:domain'],
              bannedExternalImports: IO_FRAMEWORKS,
            },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:testing'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:domain', 'type:platform'] },
            { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:testing'] },
            { sourceTag: 'scope:ingest-api', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'scope:workflow-engine', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'scope:preference-service', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'scope:management-api', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'scope:channel-dispatchers', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:service', 'type:platform', 'type:domain'] },
            {
              sourceTag: 'type:launcher',
              onlyDependOnLibsWithTags: ['type:service', 'type:platform', 'type:domain', 'type:testing'],
            },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:domain', 'type:platform'] },
            { sourceTag: 'type:console', onlyDependOnLibsWithTags: [] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
];
