// Lint enforces the architecture: the decider kernel imports no Herald library;
// domain libraries (message contracts, the pure workflow interpreter) cannot import
// Nest, kafkajs, TypeORM, pg or any other I/O framework; service libraries cannot
// import each other (they talk over Kafka); only the launchers import services; the
// operator console (apps/console, a browser app) imports no Herald library: it reads
// the public HTTP APIs like any client.
// No import cycles between files, anywhere (import-x/no-cycle, resolved through the
// tsconfig paths): shared types and helpers go to a leaf module both sides import.
import nx from '@nx/eslint-plugin';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
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
  { ignores: ['**/node_modules/**', '**/dist/**', '.nx/**', '.herald/**', 'scripts/kafka/work/**', 'coverage/**', 'apps/console/src/generated/**'] },
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
            // The decider kernel (@herald/decider): generic, pure, imports nothing of Herald.
            { sourceTag: 'type:kernel', onlyDependOnLibsWithTags: [], bannedExternalImports: IO_FRAMEWORKS },
            {
              sourceTag: 'type:domain',
              onlyDependOnLibsWithTags: ['type:kernel', 'type:domain'],
              bannedExternalImports: IO_FRAMEWORKS,
            },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:kernel', 'type:domain', 'type:platform', 'type:testing'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:kernel', 'type:domain', 'type:platform'] },
            { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:kernel', 'type:domain', 'type:platform', 'type:testing'] },
            { sourceTag: 'scope:ingest-api', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'scope:workflow-engine', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'scope:preference-service', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'scope:management-api', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'scope:channel-dispatchers', notDependOnLibsWithTags: ['type:service'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:service', 'type:platform', 'type:domain', 'type:kernel'] },
            {
              sourceTag: 'type:launcher',
              onlyDependOnLibsWithTags: ['type:service', 'type:platform', 'type:domain', 'type:kernel', 'type:testing'],
            },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:domain', 'type:kernel', 'type:platform'] },
            { sourceTag: 'type:console', onlyDependOnLibsWithTags: [] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      // Dependencies are parsed as TypeScript; '@herald/*' resolves through the tsconfig paths.
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
];
