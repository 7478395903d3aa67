import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Modules that reach the database; only stores (and migrations) may import them. */
const DATABASE_MODULES = ['typeorm', '@nestjs/typeorm', 'pg', 'pg-pool', '@herald/database', '@herald/event-store'];
/** Names that mean database access whatever module they come from. */
const DATABASE_NAMES = ['DataSource', 'EntityManager', 'InjectDataSource', 'QueryRunner'];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : [path];
  });
}

/** Every `import ... from '...'` of a file: the module and the names it brings in. */
function importsOf(source: string): Array<{ module: string; names: string[] }> {
  return [...source.matchAll(/import\s+(?:type\s+)?([\s\S]*?)\s+from\s+'([^']+)'/g)].map((match) => ({
    module: match[2],
    names: match[1].replace(/[{}]/g, ' ').split(/[\s,]+/).filter(Boolean),
  }));
}

/** The house rule (issue 17): controllers speak HTTP and call stores; all SQL lives in stores. */
describe('management-api controllers', () => {
  const root = __dirname;
  const controllers = sourceFiles(root).filter((path) => path.endsWith('.controller.ts'));

  it('finds the controllers to check', () => {
    expect(controllers.length).toBeGreaterThanOrEqual(9);
  });

  it('import no database module or handle, and run no SQL', () => {
    const offences = controllers.flatMap((path) => {
      const source = readFileSync(path, 'utf8');
      const file = relative(root, path);
      const imports = importsOf(source);
      return [
        ...imports.filter((i) => DATABASE_MODULES.includes(i.module)).map((i) => `${file} imports '${i.module}'`),
        ...imports.flatMap((i) => i.names.filter((name) => DATABASE_NAMES.includes(name)).map((name) => `${file} imports ${name}`)),
        ...(/\.query\(/.test(source) ? [`${file} calls .query(`] : []),
      ];
    });
    expect(offences).toEqual([]);
  });

  it('would catch a controller that imports the database', () => {
    const imports = importsOf(`import { InjectDataSource } from '@nestjs/typeorm';\nimport { DataSource, EntityManager } from 'typeorm';`);
    expect(imports).toEqual([
      { module: '@nestjs/typeorm', names: ['InjectDataSource'] },
      { module: 'typeorm', names: ['DataSource', 'EntityManager'] },
    ]);
  });
});
