import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { AnySchema, ValidateFunction } from 'ajv';
import { managementOpenApi } from '../openapi/management-openapi';

type Operation = { responses: Record<string, { content?: { 'application/json': { schema: unknown } } }> };

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'management', components: managementOpenApi.components }, 'management');
const validators = new Map<string, ValidateFunction>();

/**
 * Checks a response against the OpenAPI description: the path template, method and
 * status must be documented, and a JSON body must match the documented schema.
 * Returns the problems (empty when the response conforms).
 */
export function openApiProblems(method: string, url: string, status: number, body: unknown): string[] {
  const path = new URL(url, 'http://x').pathname;
  const template = Object.keys(managementOpenApi.paths).find((candidate) => matches(candidate, path));
  if (!template) return [`${method} ${path}: path not in the OpenAPI description`];
  const operation = managementOpenApi.paths[template][method.toLowerCase()] as Operation | undefined;
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
}

function matches(template: string, path: string): boolean {
  const pattern = template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\/$/, '');
  return new RegExp(`^${pattern}/?$`).test(path);
}

/** `#/components/...` inside a fragment refers to the registered document. */
function rewriteRefs(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"management#/components/'));
}
