/**
 * True for Postgres' unique_violation (23505) on the named constraint. TypeORM's
 * QueryFailedError copies the driver error's fields and also keeps it as
 * `driverError`; both are looked at.
 */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  return [error, field(error, 'driverError')].some(
    (candidate) => field(candidate, 'code') === '23505' && field(candidate, 'constraint') === constraint,
  );
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}
