import { Type } from '@sinclair/typebox';
import { parseTriggerChunkAccepted } from '../messages/trigger-chunk-accepted.v1';
import { MAX_LISTED_ERRORS, FormattedString, Nullable, OneOrMany, Present, SchemaKit, openApiSchemaOf } from './schema-kit';

/** The schema kit: Herald's field paths and wording from ajv's errors, and the OpenAPI form of a schema. */
const kit = new SchemaKit(
  { slug: (value) => (/^[a-z]+$/.test(value) ? undefined : `must be a slug (${value.length} characters sent)`) },
  { even: (value) => (typeof value === 'number' && value % 2 !== 0 ? 'must be even' : undefined) },
);
const Item = kit.named('KitSpecItem', Type.Object({ name: Present(FormattedString('slug')), count: Nullable(Type.Integer({ 'x-check': 'even' })) }));
const Body = Type.Object({
  items: Present(Type.Array(Item, { minItems: 1, maxItems: 2, 'x-noun': 'item' })),
  tags: Nullable(OneOrMany(Type.String())),
  mode: Nullable(Type.Unsafe<string>({ enum: ['a', 'b'] })),
});
const parser = kit.parser(Body);

describe('SchemaKit', () => {
  it('accepts a valid body as the typed value, null optional fields and lone values included', () => {
    const body = { items: [{ name: 'ab', count: null }], tags: 'one', mode: null, other: 1 };
    expect(parser.parse(body)).toEqual({ ok: true, value: body });
  });

  it('words every failing field as the hand readers did, by its path', () => {
    expect(parser.parse({ items: [{ name: 'A1', count: 3 }, { count: 2 }, 5], tags: [1], mode: 'c' })).toEqual({
      ok: false,
      errors: [
        { path: 'items', message: 'must hold 1 to 2 items (it holds 3)' },
        { path: 'items[0].name', message: 'must be a slug (2 characters sent)' },
        { path: 'items[0].count', message: 'must be even' },
        { path: 'items[1].name', message: 'is required' },
        { path: 'items[2]', message: 'must be an object' },
        { path: 'tags[0]', message: 'must be a string' },
        { path: 'mode', message: 'must be one of a, b' },
      ],
    });
    expect(parser.parse({ items: null })).toEqual({ ok: false, errors: [{ path: 'items', message: 'is required' }] });
    expect(parser.parse([])).toEqual({ ok: false, errors: [{ path: '', message: 'must be an object' }] });
  });

  it(`lists at most ${MAX_LISTED_ERRORS} errors and counts the rest`, () => {
    const many = kit.parser(Type.Array(Type.String()));
    const result = many.parse(Array.from({ length: MAX_LISTED_ERRORS + 5 }, () => 0));
    expect(result.ok ? [] : result.errors.slice(-1)).toEqual([{ path: '', message: 'and 5 more errors' }]);
  });

  it('gives the OpenAPI form: plain JSON, a named schema referenced as its component', () => {
    expect(openApiSchemaOf(Type.Array(Item))).toEqual({ type: 'array', items: { $ref: '#/components/schemas/KitSpecItem' } });
    expect(kit.openApiComponents().KitSpecItem).toMatchObject({ type: 'object', required: ['name'] });
  });

  it('refuses a schema naming a check or format it does not have, when compiled', () => {
    expect(() => kit.parser(Type.String({ 'x-check': 'odd' }))).toThrow(/check odd/);
    expect(() => kit.parser(Type.String({ format: 'nope' }))).toThrow(/nope/);
  });
});

describe('message schemas: consumers parse every level, not the top only', () => {
  const chunk = {
    message_id: 'm-1',
    recipient_count: 1,
    workspace_slug: 'w',
    workflow: 'welcome',
    recipients: [{ index: 0, recipient: { kind: 'user', distinct_id: 'u', is_transient: false, inline: true, channels: { email: ['a@b.co'] }, properties: {} } }],
    data: {},
    attachments: [{ kind: 'url', url: 'https://example.com/a.pdf', ignore_if_error: false }],
    accepted_via: 'api',
    accepted_at: '2026-12-06T00:00:00.000Z',
  };

  it('accepts what ingest publishes', () => {
    expect(parseTriggerChunkAccepted(chunk)).toEqual({ ok: true, value: chunk });
  });

  it('names a wrong field deep in a recipient or an attachment, as the dead letter reason', () => {
    const recipient = { ...chunk.recipients[0].recipient, channels: { email: 'a@b.co' }, is_transient: 'no' };
    const result = parseTriggerChunkAccepted({ ...chunk, recipients: [{ index: 0, recipient }], attachments: [{ kind: 'url' }] });
    expect(result.ok ? [] : result.errors.map((error) => error.path)).toEqual(
      ['payload.recipients[0].recipient.is_transient', 'payload.recipients[0].recipient.channels.email', 'payload.attachments[0].url', 'payload.attachments[0].ignore_if_error'],
    );
  });
});
