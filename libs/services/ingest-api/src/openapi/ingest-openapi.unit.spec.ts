import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod, Type } from '@nestjs/common';
import { TSchema } from '@sinclair/typebox';
import { openApiSchemaOf } from '@herald/contracts';
import { REQUEST_BODY_SCHEMA } from '../http/request-body-schema';
import { IngestApiModule } from '../ingest-api.module';
import { ingestSchemas } from '../validation/ingest-checks';
import { ingestOpenApi } from './ingest-openapi';

/**
 * Contracts defined once (docs/architecture.md, "Contracts"): every ingest route's
 * OpenAPI request body is the schema its handler validates with, and every component
 * those bodies name is the kit's schema of that name. Fails on a body or component
 * written by hand, on a handler whose schema the document does not show, and on a
 * documented body no handler declares.
 */
type Document = { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>; components: { schemas: Record<string, unknown> } };

interface Handler {
  readonly route: string;
  readonly schema: TSchema | undefined;
}

function handlersOf(controllers: readonly Type[]): Handler[] {
  return controllers.flatMap((controller) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype).flatMap((name) => {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) return [];
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod].toLowerCase();
      const path = `/${[base, String(Reflect.getMetadata(PATH_METADATA, handler))].filter((part) => part !== '' && part !== '/').join('/')}`;
      return [{ route: `${method} ${path.replace(/:([a-z_]+)/g, '{$1}')}`, schema: Reflect.getMetadata(REQUEST_BODY_SCHEMA, handler) as TSchema | undefined }];
    });
  });
}

const withoutTrailingSlash = (path: string): string => path.replace(/\/$/, '');

/** What differs between the document and the handlers; empty when the document's bodies are the validating schemas. */
function contractMismatches(document: Document, handlers: readonly Handler[]): string[] {
  const problems: string[] = [];
  const documented = new Map<string, unknown>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const schema = operation.requestBody?.content['application/json']?.schema;
      if (schema !== undefined) documented.set(`${method} ${withoutTrailingSlash(path)}`, schema);
    }
  }
  for (const handler of handlers) {
    const route = withoutTrailingSlash(handler.route);
    const shown = documented.get(route);
    if (handler.schema === undefined) {
      if (shown !== undefined) problems.push(`${route}: the document shows a body no handler declares (@RequestBodySchema)`);
      continue;
    }
    if (shown === undefined) problems.push(`${route}: validated by a schema the document does not show`);
    else if (JSON.stringify(shown) !== JSON.stringify(openApiSchemaOf(handler.schema))) problems.push(`${route}: the document's body is not the schema the handler validates with`);
    documented.delete(route);
  }
  for (const route of documented.keys()) problems.push(`${route}: a documented body with no handler`);
  for (const [name, schema] of Object.entries(ingestSchemas.openApiComponents())) {
    if (JSON.stringify(document.components.schemas[name]) !== JSON.stringify(schema)) problems.push(`component ${name} is not the kit's schema`);
  }
  // Every reference in a request body resolves to a component.
  const references = JSON.stringify([...Object.values(document.paths)]).match(/#\/components\/schemas\/[A-Za-z]+/g) ?? [];
  for (const reference of new Set(references)) if (!(reference.split('/').pop()! in document.components.schemas)) problems.push(`${reference} is not a component`);
  return problems;
}

const controllers = IngestApiModule.register().controllers as Type[];
const document = ingestOpenApi as unknown as Document;

describe('ingest OpenAPI: request bodies come from the validating schemas', () => {
  it('declares a body schema on every route that takes one', () => {
    expect(handlersOf(controllers).filter((handler) => handler.schema !== undefined).map((handler) => handler.route).sort()).toEqual(
      ['post /trigger', 'post /{workspace_key}/trigger', 'post /{workspace_key}/broadcast', 'post /event', 'post /v2/event', 'post /v2/bulk/event'].sort(),
    );
  });

  it('shows, for every route, the schema its handler validates with, and the kit components as they are', () => {
    expect(contractMismatches(document, handlersOf(controllers))).toEqual([]);
  });

  it('notices a body or a component written by hand', () => {
    const copy = JSON.parse(JSON.stringify(document)) as Document;
    (copy.paths['/trigger/'].post.requestBody!.content['application/json'].schema as Record<string, unknown>).description = 'edited';
    (copy.components.schemas.Event as { properties: Record<string, unknown> }).properties.extra = { type: 'string' };
    expect(contractMismatches(copy, handlersOf(controllers))).toEqual([
      "post /trigger: the document's body is not the schema the handler validates with",
      "component Event is not the kit's schema",
    ]);
  });

  it('notices a handler whose body schema the document does not show', () => {
    const copy = JSON.parse(JSON.stringify(document)) as Document;
    delete copy.paths['/{workspace_key}/broadcast/'].post.requestBody;
    expect(contractMismatches(copy, handlersOf(controllers))).toEqual(['post /{workspace_key}/broadcast: validated by a schema the document does not show']);
  });
});
