import { HeraldError } from '@herald/contracts';
import { jsInboxEventOfBulk, jsInboxEventOfItem, jsInboxPageOf, jsInboxUpdateOf, readJsInboxPageQuery, subscriberIdMatches, subscriberIdOf, workspaceKeyOf } from './js-inbox-protocol';

const fieldsOf = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof HeraldError) return error.fieldErrors.map((field) => field.path);
    throw error;
  }
  throw new Error('no error');
};

describe("@suprsend/js-inbox's protocol", () => {
  it("makes the subscriber id as SuprSend's docs do (their Java example's values) and checks it against every secret of the key", () => {
    const id = subscriberIdOf('b8278572-2929-4af6-be2b-cdc2bc1f6256', 'IG-J8Wvf7M-w4ll13h53NJAMQQNHdUqFTSJ2JVAZl0s');
    expect(id).toBe('dHBWYF4oV190o4j-e3eYxB-SCkeHnoaiofe8EmGk9JQ');
    expect(subscriberIdMatches(id, 'b8278572-2929-4af6-be2b-cdc2bc1f6256', ['rolled', 'IG-J8Wvf7M-w4ll13h53NJAMQQNHdUqFTSJ2JVAZl0s'])).toBe(true);
    expect(subscriberIdMatches(id, 'another-user', ['IG-J8Wvf7M-w4ll13h53NJAMQQNHdUqFTSJ2JVAZl0s'])).toBe(false);
    expect(subscriberIdMatches(`${id}=`, 'b8278572-2929-4af6-be2b-cdc2bc1f6256', ['IG-J8Wvf7M-w4ll13h53NJAMQQNHdUqFTSJ2JVAZl0s'])).toBe(false);
  });

  it('reads the workspace key before the colon, whatever follows', () => {
    expect(workspaceKeyOf('wk_abc:1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed')).toBe('wk_abc');
    expect(workspaceKeyOf('wk_abc:')).toBe('wk_abc');
    expect(workspaceKeyOf(':x')).toBeUndefined();
    expect(workspaceKeyOf('Bearer x:y')).toBeUndefined();
    expect(workspaceKeyOf(undefined)).toBeUndefined();
  });

  it('reads a page query and names every bad parameter', () => {
    expect(readJsInboxPageQuery({ page_no: '2', page_size: '10', before: '1700000000000' })).toMatchObject({ pageNumber: 2, pageSize: 10, createdBeforeMs: 1700000000000, filter: { archived: false } });
    expect(readJsInboxPageQuery({ store: JSON.stringify({ store_id: 'a', query: { archived: true, categories: { or: ['news'] } } }) }).filter).toEqual({ archived: true, tags: [], categories: ['news'] });
    expect(fieldsOf(() => readJsInboxPageQuery({ page_no: '0', page_size: '51', before: 'soon', store: '[' }))).toEqual(['page_no', 'page_size', 'before', 'store']);
    expect(jsInboxPageOf([], 41, { pageNumber: 3, pageSize: 20, filter: { archived: false, tags: [], categories: [] } }).meta).toEqual({ current_page: 3, total_pages: 3, total_count: 41, page_size: 20 });
  });

  it('maps actions and inbox changes to what the SDK hears', () => {
    expect(jsInboxUpdateOf('unread')).toEqual({ read: false });
    expect(jsInboxUpdateOf('archive')).toEqual({ archived: true });
    expect(jsInboxEventOfItem('update', { id: 'n', archived_at: '2026-01-01T00:00:00Z' })).toEqual({ name: 'notification_updated', payload: { n_id: 'n', type: 'archive' } });
    expect(jsInboxEventOfItem('ping', { id: 'n' })).toBeUndefined();
    expect(jsInboxEventOfBulk({ workspace_id: 'w', distinct_id: 'd', change: 'seen', notification_ids: ['n'] })).toBeUndefined();
    expect(jsInboxEventOfBulk({ workspace_id: 'w', distinct_id: 'd', change: 'badge_reset' })).toEqual({ name: 'update_badge', payload: {} });
  });
});
