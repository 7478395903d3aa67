import 'reflect-metadata';
import { RequestMethod, Type } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ManagementApiModule } from '../management-api.module';
import { ROUTE_ACCESS, RouteAccess } from './roles';
import { ServiceTokenGuard } from './service-token.guard';

interface Route {
  readonly route: string;
  readonly access: RouteAccess | undefined;
  readonly guarded: boolean;
}

/** Every route of every management controller, as Nest will mount it, with the role it declares. */
function managementRoutes(): Route[] {
  const controllers = (ManagementApiModule.register().controllers ?? []) as Type[];
  return controllers.flatMap((controller) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const guards = (Reflect.getMetadata(GUARDS_METADATA, controller) ?? []) as unknown[];
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype)
      .filter((name) => name !== 'constructor' && typeof prototype[name] === 'function' && Reflect.hasMetadata(METHOD_METADATA, prototype[name] as object))
      .map((name) => {
        const handler = prototype[name] as object;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const path = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
        return {
          route: `${method} /${[base, path].filter((part) => part !== '' && part !== '/').join('/')} (${controller.name}.${name})`,
          access: Reflect.getMetadata(ROUTE_ACCESS, handler) as RouteAccess | undefined,
          guarded: guards.includes(ServiceTokenGuard),
        };
      });
  });
}

describe('management routes and roles', () => {
  const routes = managementRoutes();

  it('finds the routes (the enumeration works)', () => {
    expect(routes.length).toBeGreaterThan(80);
    expect(routes.map((route) => route.route)).toEqual(expect.arrayContaining([expect.stringMatching(/^POST \/v1\/:workspace\/workflow\/:slug \(/)]));
  });

  it('has every route declare the least role it needs (or that it is public)', () => {
    expect(routes.filter((route) => route.access === undefined).map((route) => route.route)).toEqual([]);
  });

  it('guards every route that needs a role with the guard that checks it', () => {
    expect(routes.filter((route) => route.access !== 'public' && !route.guarded).map((route) => route.route)).toEqual([]);
  });

  it('keeps credentials and people to owners, and lets viewers only read (validate and preview change nothing)', () => {
    const ownerOnly = routes.filter((route) => route.access === 'owner').map((route) => route.route.split(' (')[0]);
    expect(ownerOnly).toEqual(expect.arrayContaining(['POST /v1/operator', 'PATCH /v1/operator/:id', 'DELETE /v1/operator/:id', 'POST /v1/:workspace/ws_key', 'POST /v1/:workspace/ws_api_key']));
    const viewerChanges = routes.filter((route) => route.access === 'viewer' && !route.route.startsWith('GET ')).map((route) => route.route.split(' (')[0]);
    expect(viewerChanges.sort()).toEqual(
      [
        'POST /v1/:workspace/console_api_key',
        'POST /v1/:workspace/workflow/:slug/validate',
        'POST /v2/:workspace/template/:template_slug/channel/:channel/preview',
        'POST /v2/:workspace/template/:template_slug/channel/:channel/variant/:variant_id/preview',
      ].sort(),
    );
  });
});
