/**
 * Collects every error of a validation with the path of the failing field
 * (`tree.nodes[2].branches[0].nodes[1].duration`), so a client sees all of them at once.
 */
export class ValidationErrors {
  private readonly entries: string[] = [];

  add(path: string, message: string): void {
    this.entries.push(path === '' ? message : `${path}: ${message}`);
  }

  get all(): readonly string[] {
    return this.entries;
  }

  get isEmpty(): boolean {
    return this.entries.length === 0;
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
