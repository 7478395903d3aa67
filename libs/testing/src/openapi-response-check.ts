import { randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { AnySchema, ValidateFunction } from 'ajv';

type Operation = { responses: Record<string, { content?: { 'application/json': { schema: unknown } } }> };

export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: unknown;
}

/**
 * A checker of responses against an OpenAPI description: the path template, method and
 * status must be documented, and a JSON body must match the documented schema. The
 * checker returns the problems (empty when the response conforms). Each API's test
 * fixture runs every response it sees through one, so an undocumented status or field
 * fails a test.
 */
export function openApiResponseChecker(document: OpenApiDocument): (method: string, url: string, status: number, body: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const id = `doc-${randomUUID()}`;
  ajv.addSchema({ $id: id, components: document.components }, id);
  const validators = new Map<string, ValidateFunction>();
  // `#/components/...` inside a fragment refers to the registered document.
  const rewriteRefs = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, `"${id}#/components/`));

  return (method, url, status, body) => {
    const path = new URL(url, 'http://x').pathname;
    const template = Object.keys(document.paths).find((candidate) => matches(candidate, path));
    if (!template) return [`${method} ${path}: path not in the OpenAPI description`];
    const operation = document.paths[template][method.toLowerCase()] as Operation | undefined;
    if (!operation) return [`${method} ${template}: method not in the OpenAPI description`];
    const response = operation.responses[String(status)];
    if (!response) return [`${method} ${template}: status ${status} not in the OpenAPI description`];
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return status === 204 && (body === '' || body === undefined) ? [] : [`${method} ${template} ${status}: documented without a body`];
    const key = `${method} ${template} ${status}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(rewriteRefs(schema) as AnySchema);
      validators.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || '(body)'} ${e.message ?? ''}`);
  };
}

function matches(template: string, path: string): boolean {
  const pattern = template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\/$/, '');
  return new RegExp(`^${pattern}/?$`).test(path);
}
