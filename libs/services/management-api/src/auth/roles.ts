import { SetMetadata } from '@nestjs/common';

/**
 * What an operator may do in its account. owner: everything, operators and credentials
 * included; editor: definitions (workflows, templates, vendors, lists, categories,
 * webhooks...); viewer: reads, with secrets hidden. A service token acts as an owner.
 */
export type OperatorRole = 'owner' | 'editor' | 'viewer';
export const OPERATOR_ROLES: readonly OperatorRole[] = ['owner', 'editor', 'viewer'];

/** A route's declared access: the least role it needs, or `public` (no credential: sign-in, the console's files). */
export type RouteAccess = OperatorRole | 'public';

export const ROUTE_ACCESS = 'herald:route-access';

const RANK: Readonly<Record<OperatorRole, number>> = { viewer: 0, editor: 1, owner: 2 };

/** The least role a management route needs; every route declares one (or `@PublicRoute()`), the guard refuses a route that does not. */
export const RequiredRole = (role: OperatorRole): MethodDecorator => SetMetadata(ROUTE_ACCESS, role);

/** A route anyone may call (it authenticates by other means, or serves no data). */
export const PublicRoute = (): MethodDecorator => SetMetadata(ROUTE_ACCESS, 'public');

export function roleAllows(held: OperatorRole, required: OperatorRole): boolean {
  return RANK[held] >= RANK[required];
}

export function isOperatorRole(value: unknown): value is OperatorRole {
  return typeof value === 'string' && (OPERATOR_ROLES as readonly string[]).includes(value);
}
