import { DynamicModule, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { TSchema, Type as Schema } from '@sinclair/typebox';
import { SchemaKit, openApiSchemaOf } from '@herald/contracts';
import { channelDispatchers } from '@herald/channel-dispatchers';
import { ingestApi } from '@herald/ingest-api';
import { managementApi } from '@herald/management-api';
import { preferenceService } from '@herald/preference-service';
import { OpenApiDocument, REQUEST_BODY_SCHEMA, ServiceDefinition, mergeOpenApi } from '@herald/runtime';
import { workflowEngine } from '@herald/workflow-engine';

/**
 * Contracts defined once (issue 40; docs/architecture.md, "Contracts"): a route's request
 * body is one TypeBox schema, which validates it (`@ValidBody(parser)`, or
 * `@RequestBodySchema(schema)` where the handler validates itself) and is the body its
 * API's OpenAPI document shows. This fails on a documented body that differs from the
 * handler's schema, on a handler's schema the document does not show, on a documented body
 * no handler declares, on a component that is not the kit's schema of that name, and on a
 * handler that takes a body with no schema, unless it is listed below.
 *
 * The list can only shrink: a listed route that has its schema fails until taken off.
 */
const BODIES_NOT_YET_SCHEMAS: readonly string[] = [];

/**
 * Routes between Herald's own services (management-api's vendor test to the dispatchers),
 * which neither the gateway nor the Ingress routes: no API document shows them, so their
 * schema is required but never looked for in a document.
 */
const isInternalRoute = (route: string): boolean => route.split(' ')[1].startsWith('/internal/');

const SERVICES: readonly ServiceDefinition[] = [ingestApi, preferenceService, workflowEngine, channelDispatchers, managementApi];

interface Handler {
  readonly service: string;
  readonly route: string;
  readonly api: 'public' | 'management';
  readonly schema: TSchema | undefined;
  readonly takesBody: boolean;
}

function controllersOf(module: DynamicModule | Type): Type[] {
  const dynamic = 'module' in module ? module : undefined;
  const own = [...(dynamic?.controllers ?? []), ...((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, dynamic?.module ?? module) as Type[] | undefined) ?? [])];
  const imports = [...(dynamic?.imports ?? []), ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, dynamic?.module ?? module) as Array<DynamicModule | Type> | undefined) ?? [])];
  return [...own, ...imports.flatMap((imported) => (imported && (typeof imported === 'function' || 'module' in imported) ? controllersOf(imported as DynamicModule | Type) : []))];
}

/** A route as `method /path` with its parameters unnamed (`/v1/user/{}`): the document and the controllers name some differently. */
const routeKey = (method: string, path: string): string => `${method} ${path.replace(/\/$/, '').replace(/\{[^}]+\}/g, '{}') || '/'}`;

function handlersOf(service: ServiceDefinition): Handler[] {
  if (service.api === 'internal') return [];
  const api = service.api;
  return [...new Set(controllersOf(service.module()))].flatMap((controller) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype).flatMap((name) => {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) return [];
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod].toLowerCase();
      const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, unknown>;
      const takesBody = Object.keys(args).some((key) => Number(key.split(':')[0]) === RouteParamtypes.BODY);
      const schema = Reflect.getMetadata(REQUEST_BODY_SCHEMA, handler) as TSchema | undefined;
      return paths.map((path) => {
        const full = `/${[base, String(path)].filter((part) => part !== '' && part !== '/').join('/')}`.replace(/\/+/g, '/');
        return { service: service.name, route: routeKey(method, full.replace(/:([A-Za-z_]+)/g, '{}')), api, schema, takesBody };
      });
    });
  });
}

function documentOf(api: 'public' | 'management'): OpenApiDocument {
  return mergeOpenApi(api, SERVICES.filter((service) => service.api === api && service.openApi).map((service) => service.openApi!));
}

type Operation = { requestBody?: { content?: Record<string, { schema?: unknown }> } };

function documentedBodies(document: OpenApiDocument): Map<string, unknown> {
  const bodies = new Map<string, unknown>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      // JSON, or the one form the operation takes (a one-click unsubscribe posts a form).
      const content = (operation as Operation | null)?.requestBody?.content ?? {};
      const schema = (content['application/json'] ?? Object.values(content)[0])?.schema;
      if (schema !== undefined) bodies.set(routeKey(method, path), schema);
    }
  }
  return bodies;
}

/** What differs between the documents and the handlers; empty when every body is its schema. */
function contractMismatches(documents: Record<'public' | 'management', OpenApiDocument>, handlers: readonly Handler[], notYet: readonly string[]): string[] {
  const problems: string[] = [];
  const documented = { public: documentedBodies(documents.public), management: documentedBodies(documents.management) };
  const schemaRoutes = new Set<string>();
  for (const handler of handlers) {
    const shown = documented[handler.api].get(handler.route);
    if (handler.schema === undefined) {
      if (handler.takesBody && !notYet.includes(handler.route)) problems.push(`${handler.route}: takes a body with no schema (@ValidBody)`);
      continue;
    }
    schemaRoutes.add(`${handler.api} ${handler.route}`);
    if (notYet.includes(handler.route)) problems.push(`${handler.route}: has its schema now; take it off BODIES_NOT_YET_SCHEMAS`);
    if (shown === undefined) {
      if (!isInternalRoute(handler.route)) problems.push(`${handler.route}: validated by a schema the document does not show`);
    }
    else if (JSON.stringify(shown) !== JSON.stringify(openApiSchemaOf(handler.schema))) problems.push(`${handler.route}: the document's body is not the schema the handler validates with`);
  }
  for (const api of ['public', 'management'] as const) {
    for (const route of documented[api].keys()) {
      const handled = handlers.some((handler) => handler.api === api && handler.route === route);
      if (!schemaRoutes.has(`${api} ${route}`) && !notYet.includes(route)) problems.push(`${route}: a documented body ${handled ? 'that no schema of its handler gives' : 'with no handler'}`);
    }
    const components = SchemaKit.everyComponent();
    const references = new Set(JSON.stringify([...documented[api].values()]).match(/#\/components\/schemas\/[A-Za-z0-9_]+/g) ?? []);
    for (const reference of references) {
      const name = reference.split('/').pop()!;
      const shown = (documents[api].components?.schemas ?? {})[name];
      if (shown === undefined) problems.push(`${reference} is not a component`);
      else if (name in components && JSON.stringify(shown) !== JSON.stringify(components[name])) problems.push(`component ${name} is not the kit's schema`);
    }
  }
  return problems;
}

const handlers = SERVICES.flatMap(handlersOf);
const documents = { public: documentOf('public'), management: documentOf('management') };

describe('request bodies: one schema validates each and is its OpenAPI body', () => {
  it('finds the routes of all five services, and the schemas of those already converted', () => {
    expect(handlers.length).toBeGreaterThan(100);
    expect(handlers.filter((handler) => handler.schema !== undefined).map((handler) => handler.route)).toEqual(expect.arrayContaining(['post /trigger', 'post /v2/bulk/event']));
  });

  it('shows every route body as the schema its handler validates with', () => {
    expect(contractMismatches(documents, handlers, BODIES_NOT_YET_SCHEMAS)).toEqual([]);
  });

  it('notices a documented body or component edited by hand', () => {
    const copy = JSON.parse(JSON.stringify(documents)) as typeof documents;
    const trigger = copy.public.paths['/trigger/'] as { post: { requestBody: { content: Record<string, { schema: Record<string, unknown> }> } } };
    trigger.post.requestBody.content['application/json'].schema.description = 'edited';
    (copy.public.components!.schemas as Record<string, { properties: Record<string, unknown> }>).Event.properties.extra = { type: 'string' };
    expect(contractMismatches(copy, handlers, BODIES_NOT_YET_SCHEMAS)).toEqual([
      "post /trigger: the document's body is not the schema the handler validates with",
      "component Event is not the kit's schema",
    ]);
  });

  it('notices a schema the document does not show, and a body taken with no schema', () => {
    const copy = JSON.parse(JSON.stringify(documents)) as typeof documents;
    delete (copy.public.paths['/{workspace_key}/broadcast/'] as { post: Operation }).post.requestBody;
    const unschemed = { service: 'example', route: 'post /v1/example/{}', api: 'public' as const, schema: undefined, takesBody: true };
    // A route between Herald's services is in no document: its schema is enough.
    const internal = { service: 'example', route: 'post /internal/example', api: 'public' as const, schema: Schema.Object({}), takesBody: true };
    expect(contractMismatches(copy, [...handlers, unschemed, internal], BODIES_NOT_YET_SCHEMAS)).toEqual([
      'post /{}/broadcast: validated by a schema the document does not show',
      'post /v1/example/{}: takes a body with no schema (@ValidBody)',
    ]);
  });
});
