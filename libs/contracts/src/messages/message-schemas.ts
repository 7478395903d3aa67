import { Static, TSchema, Type } from '@sinclair/typebox';
import { CHANNELS, Channel } from '../channels';
import { SchemaKit } from '../schema/schema-kit';

/**
 * The schema kit of internal messages (docs/architecture.md, "Contracts"): a payload's
 * schema gives its type (`Contract<typeof Schema>`) and the consumer's parser
 * (`messageSchemas.parser(Schema, 'payload')`). Producers build payloads of that type;
 * consumers dead-letter one the schema refuses, with the field errors as the reason.
 */
export const messageSchemas = new SchemaKit({});

/** A schema's static type, readonly all the way down, as message payloads are never changed in place. */
export type Contract<T extends TSchema> = DeepReadonly<Static<T>>;
type DeepReadonly<T> = T extends (infer Item)[] ? ReadonlyArray<DeepReadonly<Item>> : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/** A string producers always fill. */
export const NonEmptyString = (options: Record<string, unknown> = {}) => Type.String({ minLength: 1, 'x-message': 'must be a non-empty string', ...options });
export const OptionalString = () => Type.Optional(Type.String({ 'x-message': 'must be a string' }));
/** A JSON object as parsed from a request body; values are left as the client sent them. */
export const JsonRecordSchema = Type.Record(Type.String(), Type.Unknown());
export const ChannelSchema = Type.Unsafe<Channel>({ enum: [...CHANNELS] });
export const AcceptedViaSchema = Type.Unsafe<'api' | 'kafka'>({ enum: ['api', 'kafka'] });

