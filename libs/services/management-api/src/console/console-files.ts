import { existsSync, statSync } from 'node:fs';
import { extname, join, relative, resolve, sep } from 'node:path';

/** The console's build (apps/console/dist): `npm ci`, `npm start` and `npm test` make it (tools/console/build.js). */
export const CONSOLE_DIST = resolve(__dirname, '..', '..', '..', '..', '..', 'apps', 'console', 'dist');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export type ConsoleFile =
  | { readonly kind: 'file'; readonly path: string; readonly contentType: string; readonly cacheControl: string }
  | { readonly kind: 'not_found'; readonly reason: string }
  | { readonly kind: 'not_built' };

/**
 * Which file answers `/console/<requested>`: a file of the build, else (a page of the
 * single-page app, a path without an extension) its index.html. Paths that climb out of
 * the build (`..`, encoded or not), hidden files and unknown types are not found.
 * Hashed assets are cached for good; index.html is revalidated, so a new build shows at once.
 */
export function consoleFileFor(dist: string, requested: string): ConsoleFile {
  const index = join(dist, 'index.html');
  if (!existsSync(index)) return { kind: 'not_built' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(requested.split('?')[0]);
  } catch {
    return { kind: 'not_found', reason: 'malformed path' };
  }
  const segments = decoded.split(/[/\\]/).filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '..' || segment.startsWith('.') || segment.includes('\0'))) {
    return { kind: 'not_found', reason: 'no such file' };
  }
  const candidate = resolve(dist, ...segments);
  const inside = relative(dist, candidate);
  if (inside.startsWith('..') || inside.split(sep).includes('..')) return { kind: 'not_found', reason: 'no such file' };
  const extension = extname(candidate);
  if (segments.length > 0 && existsSync(candidate) && statSync(candidate).isFile()) {
    const contentType = CONTENT_TYPES[extension];
    if (!contentType) return { kind: 'not_found', reason: 'no such file' };
    const hashed = segments[0] === 'assets';
    return { kind: 'file', path: candidate, contentType, cacheControl: hashed ? 'public, max-age=31536000, immutable' : 'no-cache' };
  }
  // A missing asset is a 404 (a stale page asking for an old bundle should fail, not get HTML).
  if (extension !== '') return { kind: 'not_found', reason: 'no such file' };
  return { kind: 'file', path: index, contentType: CONTENT_TYPES['.html'], cacheControl: 'no-cache' };
}
