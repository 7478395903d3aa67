import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleFileFor } from './console-files';

describe('consoleFileFor: which file answers /console/<path>', () => {
  let root: string;
  let dist: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'console-files-'));
    dist = join(root, 'dist');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html>');
    writeFileSync(join(dist, 'assets', 'index-abc.js'), '');
    writeFileSync(join(dist, 'assets', 'index-abc.css'), '');
    writeFileSync(join(dist, 'assets', 'data.bin'), '');
    writeFileSync(join(dist, '.secret'), '');
    writeFileSync(join(root, 'outside.json'), '{}');
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serves the build with its content type, hashed assets cached for good and the page revalidated', () => {
    expect(consoleFileFor(dist, 'assets/index-abc.js')).toEqual({
      kind: 'file',
      path: join(dist, 'assets', 'index-abc.js'),
      contentType: 'text/javascript; charset=utf-8',
      cacheControl: 'public, max-age=31536000, immutable',
    });
    expect(consoleFileFor(dist, 'assets/index-abc.css')).toMatchObject({ kind: 'file', contentType: 'text/css; charset=utf-8' });
    expect(consoleFileFor(dist, 'index.html')).toMatchObject({ kind: 'file', contentType: 'text/html; charset=utf-8', cacheControl: 'no-cache' });
  });

  it("answers the app's pages (paths without an extension) with index.html", () => {
    for (const page of ['', 'runs', 'runs/8c1f0e4a-1b2c-4d5e-8f90-a1b2c3d4e5f6', 'workflows/order-update?x=1']) {
      expect(consoleFileFor(dist, page)).toEqual({ kind: 'file', path: join(dist, 'index.html'), contentType: 'text/html; charset=utf-8', cacheControl: 'no-cache' });
    }
  });

  it('finds nothing outside the build, hidden, of an unknown type or missing with an extension', () => {
    for (const path of ['../outside.json', '..%2foutside.json', 'assets/..%2F..%2Foutside.json', '..\\outside.json', '%2e%2e/outside.json', '.secret', 'assets/data.bin', 'assets/old-bundle.js', '%E0%A4%A']) {
      expect({ path, found: consoleFileFor(dist, path).kind }).toEqual({ path, found: 'not_found' });
    }
  });

  it('says when the console is not built', () => {
    expect(consoleFileFor(join(root, 'nothing-here'), 'runs')).toEqual({ kind: 'not_built' });
  });
});
