import { Body, PipeTransform, SetMetadata } from '@nestjs/common';
import { Static, TSchema } from '@sinclair/typebox';
import { HeraldError, SchemaParser } from '@herald/contracts';

/** The metadata key under which a handler names the schema of its request body. */
export const REQUEST_BODY_SCHEMA = 'herald:request-body-schema';

/**
 * Names the schema a handler validates its body by, for a handler that validates it
 * itself (ingest reads the raw body for its size rule first). The service's OpenAPI
 * shows the same schema as the operation's request body, and
 * `tools/lint/request-contracts.unit.spec.ts` fails when the two differ.
 */
export const RequestBodySchema = (schema: TSchema): MethodDecorator => SetMetadata(REQUEST_BODY_SCHEMA, schema);

class SchemaValidationPipe<T extends TSchema> implements PipeTransform<unknown, Static<T>> {
  constructor(private readonly parser: SchemaParser<T>) {}

  transform(value: unknown): Static<T> {
    const parsed = this.parser.parse(value);
    if (!parsed.ok) throw HeraldError.validation(parsed.errors);
    return parsed.value;
  }
}

/**
 * The request body, validated by `parser` (contracts defined once, docs/architecture.md):
 * the handler receives the typed value, or the caller a 400 naming every failing field
 * by its path before the handler runs. It also names the schema on the handler, as
 * `@RequestBodySchema` does, so the OpenAPI check finds it.
 *
 * ```ts
 * @Post('cancel')
 * cancel(@ValidBody(ENGINE_BODIES.cancelFilters) filters: CancelFilters) { ... } // workflow-engine's runs.controller.ts
 * ```
 */
export function ValidBody<T extends TSchema>(parser: SchemaParser<T>): ParameterDecorator {
  const body = Body(new SchemaValidationPipe(parser));
  return (target, key, index) => {
    if (key !== undefined) Reflect.defineMetadata(REQUEST_BODY_SCHEMA, parser.schema, (target as Record<string | symbol, object>)[key]);
    body(target, key, index);
  };
}
