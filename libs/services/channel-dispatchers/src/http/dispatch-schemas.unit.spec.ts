import { FieldError } from '@herald/contracts';
import { DISPATCH_BODIES } from './dispatch-schemas';

const N_ID = '00000000-0000-4000-8000-000000000000';
const errorsOf = (parser: { errors(value: unknown): FieldError[] }, value: unknown): Array<[string, string]> => parser.errors(value).map((error) => [error.path, error.message]);

describe("channel-dispatchers' request bodies", () => {
  it('takes an inbox update of seen, read, archived and clicked, and words each refusal as the old reader did', () => {
    const update = DISPATCH_BODIES.inboxMessageUpdate;
    expect(update.errors({ seen: true, read: false, archived: true, clicked: true })).toEqual([]);
    expect(update.errors({})).toEqual([]); // "at least one" is the handler's rule
    expect(errorsOf(update, [])).toEqual([['', 'must be a JSON object']]);
    expect(errorsOf(update, null)).toEqual([['', 'must be a JSON object']]);
    expect(new Map(errorsOf(update, { seen: 'yes', clicked: false, pinned: true }))).toEqual(
      new Map([
        ['seen', 'must be a boolean'],
        ['clicked', 'can only be true'],
        ['pinned', 'is not a field of an inbox update (seen, read, archived, clicked)'],
      ]),
    );
    expect(errorsOf(update, { clicked: 'yes' })).toEqual([['clicked', 'must be a boolean']]);
  });

  it("takes the feed's bulk seen as 1 to 1,000 notification ids, naming each bad one", () => {
    const seen = DISPATCH_BODIES.feedNotificationsSeen;
    expect(seen.errors({ notification_ids: [N_ID, N_ID.toUpperCase()] })).toEqual([]);
    expect(errorsOf(seen, { notification_ids: [N_ID, 'x'] })).toEqual([['notification_ids[1]', 'must be a notification id (n_id)']]);
    const count = 'must be an array of 1 to 1000 notification ids';
    expect(errorsOf(seen, {})).toEqual([['notification_ids', count]]);
    expect(errorsOf(seen, { notification_ids: [] })).toEqual([['notification_ids', count]]);
    expect(errorsOf(seen, { notification_ids: N_ID })).toEqual([['notification_ids', count]]);
    expect(errorsOf(seen, { notification_ids: Array.from({ length: 1001 }, () => N_ID) })).toEqual([['notification_ids', count]]);
  });

  it("takes js-inbox's action beside the user's fields, as the SDK posts it", () => {
    const action = DISPATCH_BODIES.jsInboxAction;
    expect(action.errors({ action: 'read', distinct_id: 'alice', subscriber_id: 'sid' })).toEqual([]);
    expect(action.errors({ action: 'archive', distinct_id: 'alice', subscriber_id: 'sid', tenant_id: null, time: 1712345678901 })).toEqual([]);
    expect(errorsOf(action, { action: 'pin', distinct_id: 'alice', subscriber_id: 'sid' })).toEqual([['action', 'must be one of read, unread, archive']]);
    expect(errorsOf(action, { distinct_id: 'alice', subscriber_id: 'sid' })).toEqual([['action', 'must be one of read, unread, archive']]);
    expect(errorsOf(action, { action: 'read', distinct_id: '', subscriber_id: 'x'.repeat(129), tenant_id: 7 })).toEqual([
      ['distinct_id', 'is required: a string of 1 to 255 characters'],
      ['subscriber_id', 'is required: a string of 1 to 128 characters'],
      ['tenant_id', 'must be a string of 1 to 255 characters'],
    ]);
  });

  it("takes js-inbox's click event as the SDK sends it, and names what is wrong", () => {
    const click = DISPATCH_BODIES.jsInboxClick;
    expect(click.errors({ event: '$notification_clicked', env: 'wk_abc', $insert_id: 'u', $time: 1712345678901, properties: { id: N_ID } })).toEqual([]);
    expect(errorsOf(click, { event: 'other', env: 7, properties: { id: 'x' } })).toEqual([
      ['event', 'must be $notification_clicked (the only event of the inbox)'],
      ['env', 'must be the workspace key of Authorization'],
      ['properties.id', 'must be a notification id (n_id)'],
    ]);
    expect(errorsOf(click, { event: '$notification_clicked', properties: {} })).toEqual([['properties.id', 'must be a notification id (n_id)']]);
  });

  it('reads a sealed vendor test as a string, whatever else it holds', () => {
    expect(DISPATCH_BODIES.sealedVendorTest.parse({ sealed: 'c2VhbGVk' })).toEqual({ ok: true, value: { sealed: 'c2VhbGVk' } });
    expect(DISPATCH_BODIES.sealedVendorTest.parse({ sealed: 7 }).ok).toBe(false);
    expect(DISPATCH_BODIES.sealedVendorTest.parse(undefined).ok).toBe(false);
  });
});
