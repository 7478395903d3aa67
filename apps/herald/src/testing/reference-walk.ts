import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { AnySchema } from 'ajv';
import { parse } from 'yaml';

/**
 * Shared machinery of the reference walks (notification API, management API): reading
 * SuprSend's reference OpenAPI (a copy in tools/reference/), picking an operation's
 * example body, calling Herald, and validating a 2xx body against the reference schema.
 */
const REFERENCE_PATH = join(__dirname, '../../../../tools/reference/suprsend-openapi.yml');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface ReferenceOperation {
  readonly servers?: Array<{ url: string }>;
  readonly requestBody?: { content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> };
  readonly responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
export interface ReferenceDocument {
  readonly paths: Record<string, Record<string, ReferenceOperation>>;
  readonly components: unknown;
}
export interface WalkedOperation {
  /** `METHOD /path` as the reference spells it. */
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly operation: ReferenceOperation;
}

export function readReference(): ReferenceDocument {
  return parse(readFileSync(REFERENCE_PATH, 'utf8')) as ReferenceDocument;
}

/** The notification API's operations (the document's `{base_url}` server) or the management API's (a `servers` entry of their own). */
export function referenceOperations(reference: ReferenceDocument, api: 'notification' | 'management'): WalkedOperation[] {
  return Object.entries(reference.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] && Boolean(item[method].servers) === (api === 'management')).map((method) => ({
      key: `${method.toUpperCase()} ${path}`,
      method,
      path,
      operation: item[method],
    })),
  );
}

export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** One HTTP call; the body is parsed as JSON when it is JSON. */
export async function callJson(url: string, method: string, authorization: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed };
}

/** Herald's answer for a route it does not have. */
export const isUnknownRoute = (answer: Answer): boolean => answer.status === 404 && JSON.stringify(answer.body).includes('no such endpoint');

export function exampleBody(operation: ReferenceOperation): unknown {
  const content = operation.requestBody?.content?.['application/json'];
  if (!content) return undefined;
  if (content.example !== undefined) return content.example;
  const first = Object.values(content.examples ?? {})[0];
  return first?.value;
}

/**
 * The reference is OpenAPI 3.1 but marks nulls the 3.0 way (`nullable: true`): turned
 * into a JSON Schema type union so ajv reads them as the reference means them.
 */
function withNullables(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withNullables);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // 3.0-style `examples` objects are annotations ajv would refuse as invalid.
    if (key === 'examples' && !Array.isArray(value)) continue;
    // The reference's tenant category list has `properties: null` (no schema for its items): nothing to check there.
    if (key === 'properties' && value === null) continue;
    // The reference's delinked event has `payload_schema: {type: null}`, meaning the JSON null.
    if (key === 'type' && value === null) {
      out.type = 'null';
      continue;
    }
    out[key] = withNullables(value);
  }
  if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  if (out.nullable === true && Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  return out;
}

/**
 * Validates a 2xx body against the reference's schema of that status, or, where the
 * reference documents another 2xx only (Herald answers 202 for an accepted write the
 * reference calls 200, say), against that one.
 */
export function responseValidator(reference: ReferenceDocument): (operation: ReferenceOperation, status: number, body: unknown) => Array<{ field: string; message: string }> {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const id = `reference-${randomUUID()}`;
  ajv.addSchema({ $id: id, components: withNullables(reference.components) }, id);
  return (operation, status, body) => {
    const documented = operation.responses[String(status)] ?? Object.entries(operation.responses).find(([code]) => code.startsWith('2'))?.[1];
    const schema = documented?.content?.['application/json']?.schema;
    if (!schema) return [];
    const validate = ajv.compile(JSON.parse(JSON.stringify(withNullables(schema)).replace(/"#\/components\//g, `"${id}#/components/`)) as AnySchema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => ({ field: e.instancePath, message: e.message ?? '' }));
  };
}
