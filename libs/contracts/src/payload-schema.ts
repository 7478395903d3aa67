import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { FieldError } from './envelope';

/** A JSON Schema a workflow or event links to validate its trigger's `data` (the reference's `payload_schema`). */
export type PayloadValidator = (data: unknown, prefix: string) => FieldError[];

const DRAFT_07 = /draft-0[467]\/schema/;

function validatorFor(schema: Record<string, unknown>): Ajv {
  // Draft 2020-12 unless the document declares an older draft (ajv speaks both, each with its own class).
  const ajv = typeof schema.$schema === 'string' && DRAFT_07.test(schema.$schema) ? new Ajv({ allErrors: true, strict: false }) : new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}

/**
 * Compiles a JSON Schema document: the validator, or why the document is not a
 * schema (each problem by its path in the document, under `at`).
 */
export function compilePayloadSchema(schema: unknown, at = 'json_schema'): { ok: true; validate: PayloadValidator } | { ok: false; errors: FieldError[] } {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { ok: false, errors: [{ path: at, message: 'must be a JSON Schema object' }] };
  let compiled: ValidateFunction;
  try {
    compiled = validatorFor(schema as Record<string, unknown>).compile(schema);
  } catch (error) {
    return { ok: false, errors: [{ path: at, message: `is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}` }] };
  }
  return {
    ok: true,
    validate: (data, prefix) => (compiled(data) ? [] : (compiled.errors ?? []).map((error) => fieldErrorOf(error, prefix))),
  };
}

/** `/order/items/0` under `data` is `data.order.items[0]`; a missing property is named in the path. */
function fieldErrorOf(error: ErrorObject, prefix: string): FieldError {
  let path = prefix;
  for (const segment of error.instancePath.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(key) ? `[${key}]` : `.${key}`;
  }
  if (error.keyword === 'required') return { path: `${path}.${(error.params as { missingProperty: string }).missingProperty}`, message: 'is required' };
  if (error.keyword === 'additionalProperties') return { path: `${path}.${(error.params as { additionalProperty: string }).additionalProperty}`, message: 'is not allowed' };
  return { path, message: error.message ?? `fails ${error.keyword}` };
}
