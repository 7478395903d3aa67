import { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { Static, TSchema, TUnsafe, Type } from '@sinclair/typebox';
import { FieldError, ParseResult } from '../envelope';

/**
 * Contracts defined once (docs/architecture.md, "Contracts"): an HTTP body or a bus
 * message is a TypeBox schema, i.e. plain JSON Schema 2020-12 with a static TypeScript
 * type. From it come the type (`Static<typeof Schema>`), the validator (ajv, compiled
 * once, its errors turned into Herald's `{path, message}` with today's wording) and the
 * OpenAPI component (the same JSON, OpenAPI 3.1 reading JSON Schema 2020-12 as is).
 *
 * Herald's wording travels in annotation keywords that ajv ignores and OpenAPI keeps
 * as extensions: `x-message` (the message of a failing `not`, `type`, `enum` or `const`
 * at that node), `x-required-message` (a missing property of that object), `x-noun`
 * (what a list's count message calls one item). Rules JSON Schema cannot say
 * (an email address, a time zone the runtime knows, a base64 size) are named formats
 * (`format: "email"`) and checks (`x-check: "attachment_form"`, for rules on objects),
 * resolved in the kit's tables; each answers its error message.
 */

/** A rule on one value: its error message, or undefined when the value passes. */
export type Check = (value: unknown) => string | undefined;

/** String rules by format name: the error message, or undefined when the string passes. */
export type Formats = Readonly<Record<string, (value: string) => string | undefined>>;

/**
 * Past this many errors the rest are counted, not listed, so that a hostile body
 * (800 KB of bad recipients) cannot turn into a multi-megabyte 400 response.
 */
export const MAX_LISTED_ERRORS = 1000;

const TYPE_MESSAGES: Readonly<Record<string, string>> = {
  string: 'must be a string',
  object: 'must be an object',
  array: 'must be an array',
  boolean: 'must be true or false',
  number: 'must be a number',
  integer: 'must be an integer',
  null: 'must be null',
};

/** Keywords whose failure only says that a branch failed; the branch's own errors say why. */
const BRANCH_KEYWORDS = new Set(['if', 'anyOf', 'oneOf', 'allOf']);

/** A validator made from a schema: the schema it checks, and the parse answering Herald's field errors. */
export interface SchemaParser<T extends TSchema> {
  readonly schema: T;
  /** The value typed, or every failing field by its path (under `prefix`); at most MAX_LISTED_ERRORS listed. */
  parse(value: unknown): ParseResult<Static<T>>;
  /** Only the field errors (none when valid), for a caller that adds its own cross-field rules. */
  errors(value: unknown): FieldError[];
}

/**
 * One ajv instance (compiled validators are cached per schema) with the named checks of
 * a service. Each service makes one kit at module load; nothing here does I/O.
 */
export class SchemaKit {
  /** Every kit made in this process, for the check that OpenAPI components are the kits' schemas. */
  private static readonly made: SchemaKit[] = [];
  private readonly ajv: Ajv2020;
  private readonly components = new Map<string, TSchema>();

  /** The named schemas of every kit made so far, as `openApiComponents` writes them. */
  static everyComponent(): Record<string, Record<string, unknown>> {
    return Object.assign({}, ...SchemaKit.made.map((kit) => kit.openApiComponents())) as Record<string, Record<string, unknown>>;
  }

  /**
   * `formats` are string rules (`format: "email"` in a schema, which OpenAPI readers see
   * as a format); `checks` rules on any value (`x-check: "attachment_form"`). Each answers
   * its error message, or undefined when the value passes.
   */
  constructor(
    private readonly formats: Formats,
    checks: Readonly<Record<string, Check>> = {},
  ) {
    SchemaKit.made.push(this);
    // Named schemas are separate functions (never inlined): inlined, a trigger's validator was 800 KB of code V8 ran slowly.
    this.ajv = new Ajv2020({ allErrors: true, verbose: true, inlineRefs: false, strictTypes: false, strictTuples: false, allowUnionTypes: true });
    this.ajv.addVocabulary(['x-message', 'x-required-message', 'x-noun']);
    for (const [name, test] of Object.entries(formats)) this.ajv.addFormat(name, { type: 'string', validate: (value: string) => test(value) === undefined });
    this.ajv.addKeyword({
      keyword: 'x-check',
      schemaType: 'string',
      errors: true,
      compile(name: string) {
        const check = Object.hasOwn(checks, name) ? checks[name] : undefined;
        if (check === undefined) throw new Error(`schema names the check ${name}, which the kit does not have`);
        const validate = (value: unknown): boolean => {
          const message = check(value);
          if (message === undefined) return true;
          validate.errors = [{ keyword: 'x-check', message, params: { check: name } }];
          return false;
        };
        validate.errors = [] as Array<Partial<ErrorObject>>;
        return validate;
      },
    });
  }

  /**
   * Names a schema: it is compiled once as its own function, referenced (`$ref`) where
   * it is used, and is the OpenAPI component of that name (`openApiComponents`).
   */
  named<T extends TSchema>(name: string, schema: T): TUnsafe<Static<T>> {
    if (this.components.has(name)) throw new Error(`schema ${name} is named twice`);
    this.components.set(name, schema);
    this.ajv.addSchema(schema, name);
    return Type.Unsafe<Static<T>>({ $ref: name });
  }

  /** Every named schema as plain JSON with OpenAPI references (`#/components/schemas/Name`). */
  openApiComponents(): Record<string, Record<string, unknown>> {
    return Object.fromEntries([...this.components].map(([name, schema]) => [name, openApiSchemaOf(schema)]));
  }

  /** Compiles `schema` once; paths of its errors start with `prefix` (`payload` for a bus message). */
  parser<T extends TSchema>(schema: T, prefix = ''): SchemaParser<T> {
    const compiled = this.ajv.compile(schema);
    const errors = (value: unknown): FieldError[] => (compiled(value) ? [] : fieldErrors(compiled, prefix, this.formats));
    return {
      schema,
      errors,
      parse(value) {
        const found = errors(value);
        return found.length === 0 ? { ok: true, value: value as Static<T> } : { ok: false, errors: found };
      },
    };
  }
}

/** ajv's errors as Herald's: one per path (the first found, as a hand reader stops at a value's first problem), capped. */
function fieldErrors(compiled: ValidateFunction, prefix: string, formats: Formats): FieldError[] {
  const byPath = new Map<string, string>();
  for (const error of compiled.errors ?? []) {
    const one = fieldErrorOf(error, prefix, formats);
    if (one !== undefined && !byPath.has(one.path)) byPath.set(one.path, one.message);
  }
  const listed = [...byPath].slice(0, MAX_LISTED_ERRORS).map(([path, message]) => ({ path, message }));
  const unlisted = byPath.size - listed.length;
  return unlisted === 0 ? listed : [...listed, { path: '', message: `and ${unlisted} more errors` }];
}

function fieldErrorOf(error: ErrorObject, prefix: string, formats: Formats): FieldError | undefined {
  if (BRANCH_KEYWORDS.has(error.keyword)) return undefined;
  const node = (typeof error.parentSchema === 'object' ? error.parentSchema : {}) as Record<string, unknown>;
  const path = pathOf(prefix, error.instancePath);
  const custom = typeof node['x-message'] === 'string' ? node['x-message'] : undefined;
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      return { path: join(path, missing), message: typeof node['x-required-message'] === 'string' ? node['x-required-message'] : 'is required' };
    }
    case 'additionalProperties':
      return { path: join(path, (error.params as { additionalProperty: string }).additionalProperty), message: custom ?? 'is not allowed' };
    case 'type':
      return { path, message: custom ?? TYPE_MESSAGES[String((error.params as { type: unknown }).type)] ?? `must be ${String((error.params as { type: unknown }).type)}` };
    case 'minItems':
    case 'maxItems':
      return { path, message: custom ?? countMessage(node, Array.isArray(error.data) ? error.data.length : 0) };
    case 'enum':
      return { path, message: custom ?? `must be one of ${(node.enum as unknown[]).map(String).join(', ')}` };
    case 'format': {
      // The format's own wording, asked again of the failing value (errors are rare; passing values pay nothing).
      const name = String((error.params as { format: unknown }).format);
      return { path, message: (Object.hasOwn(formats, name) && typeof error.data === 'string' ? formats[name](error.data) : undefined) ?? 'is not valid' };
    }
    case 'x-check':
      return { path, message: error.message ?? 'is not valid' };
    default:
      return { path, message: custom ?? error.message ?? `fails ${error.keyword}` };
  }
}

/** The count rule of a list, worded as the hand readers worded it (`must hold 1 to 100 recipients (it holds 120)`). */
function countMessage(node: Record<string, unknown>, length: number): string {
  const min = typeof node.minItems === 'number' ? node.minItems : undefined;
  const max = typeof node.maxItems === 'number' ? node.maxItems : undefined;
  const noun = typeof node['x-noun'] === 'string' ? node['x-noun'] : 'item';
  if (min !== undefined && max !== undefined) return `must hold ${min} to ${max} ${noun}s (it holds ${length})`;
  if (min !== undefined) return `must hold at least ${min} ${noun}${min === 1 ? '' : 's'}`;
  return `must hold at most ${max} ${noun}s (it holds ${length})`;
}

/** `/recipients/3/$slack/0` under `prefix` is `prefix.recipients[3].$slack[0]`. */
function pathOf(prefix: string, instancePath: string): string {
  let path = prefix;
  if (instancePath === '') return path;
  for (const segment of instancePath.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    path = /^\d+$/.test(key) ? `${path}[${key}]` : join(path, key);
  }
  return path;
}

function join(parent: string, name: string): string {
  return parent === '' ? name : `${parent}.${name}`;
}

// ---- Builders: TypeBox schemas in Herald's dialect -------------------------------------

/**
 * An optional property where null counts as absent: the SDKs send `null` for unset
 * fields (`"tenant_id": null`, an attachment's `"url": null`).
 */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Optional(Type.Unsafe<Static<T> | null>({ if: { type: 'null' }, else: schema }));
}

/** A required property; null is reported as missing (`is required`), as the hand readers did. */
export function Present<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T>>({ if: { type: 'null' }, then: { not: {}, 'x-message': 'is required' }, else: schema });
}

/** A string of the named format of the kit (and typed `string`). */
export function FormattedString(format: string, options: Record<string, unknown> = {}) {
  return Type.String({ format, ...options });
}

/** One of the given strings (`must be one of seen, clicked, ...` otherwise), typed as their union. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * A list that also takes a lone value as a one-item list. The SuprSend SDKs' own
 * request schemas allow `"$email": "a@b.co"` beside `["a@b.co"]`.
 */
export function OneOrMany<T extends TSchema>(item: T) {
  return Type.Unsafe<Static<T> | Array<Static<T>>>({ if: { type: 'array' }, then: { type: 'array', items: item }, else: item });
}

/**
 * The schema as an OpenAPI 3.1 document holds it: plain JSON (TypeBox's symbol keys
 * dropped), a named schema's `$ref` pointing at its component.
 */
export function openApiSchemaOf(schema: TSchema | Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    key === '$ref' && typeof value === 'string' && !value.startsWith('#') ? `#/components/schemas/${value}` : value,
  ) as Record<string, unknown>;
}
