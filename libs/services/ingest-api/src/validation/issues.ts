import { FieldError } from '@herald/contracts';

/**
 * Past this many errors the rest are counted, not listed, so that a hostile body
 * (800 KB of bad recipients) cannot turn into a multi-megabyte 400 response.
 */
export const MAX_LISTED_ERRORS = 1000;

/**
 * Collects every failing field of one request body with its path
 * (`recipients[3].$slack[0].access_token`), so a client sees all of them at once.
 */
export class Issues {
  private readonly entries: FieldError[] = [];
  private unlisted = 0;

  add(path: string, message: string): void {
    if (this.entries.length < MAX_LISTED_ERRORS) this.entries.push({ path, message });
    else this.unlisted += 1;
  }

  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  list(): FieldError[] {
    if (this.unlisted === 0) return [...this.entries];
    return [...this.entries, { path: '', message: `and ${this.unlisted} more errors` }];
  }
}

/** `parent.name`, or `name` at the root. */
export function fieldPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}.${name}`;
}

/** `parent[index]`. */
export function itemPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
