import { HeraldError } from '@herald/contracts';
import { ALL_NOT_ARCHIVED, FeedRow, feedItemOf, readFeedCountQuery, readFeedPageQuery } from './feed-query';

/** The query parameters `@suprsend/web-sdk` 4.1.2 sends to /v1/feed/ (objects as JSON). */
describe('the feed query readers', () => {
  const failingPaths = (read: () => unknown): string[] => {
    try {
      read();
    } catch (error) {
      return (error as HeraldError).fieldErrors.map((field) => field.path);
    }
    return [];
  };

  it("reads the SDK's first page, a next page and a store", () => {
    expect(readFeedPageQuery({ distinct_id: 'a', tenant_id: 'default', page_size: '20', search_after: '[]' })).toEqual({ pageSize: 20, filter: ALL_NOT_ARCHIVED });
    expect(readFeedPageQuery({ page_size: '2', search_after: '[false,1712345678901]' })).toEqual({ pageSize: 2, after: { pinned: false, createdMs: 1712345678901 }, filter: ALL_NOT_ARCHIVED });
    expect(readFeedPageQuery({ search_after: '[true,1712345678901]' }).after).toEqual({ pinned: true, createdMs: 1712345678901 });
    const store = JSON.stringify({ store_id: 'billing', query: { read: false, tags: { or: [] }, categories: { or: ['billing'] } } });
    expect(readFeedPageQuery({ store }).filter).toEqual({ read: false, archived: false, tags: [], categories: ['billing'] });
    expect(readFeedCountQuery({ stores: JSON.stringify([{ store_id: 'x', query: { archived: true } }]) })).toEqual([
      { storeId: 'x', filter: { archived: true, tags: [], categories: [] } },
    ]);
  });

  it('shows the extras of a stored message as the SDK reads them', () => {
    const row: FeedRow = {
      id: 'n1',
      created_at: new Date(1000),
      title: 'Friend request',
      body: 'Bob wants to connect',
      avatar: 'https://cdn.test/b.png',
      action_url: 'https://acme.test/r',
      seen_at: null,
      read_at: null,
      archived_at: null,
      clicked_at: null,
      category: 'social',
      is_pinned: true,
      expires_at: new Date(5000),
      tags: ['mentions'],
      extras: {
        avatar_url: 'https://acme.test/u/bob',
        subtext: { text: '@bob' },
        buttons: [{ text: 'Accept', url: 'https://acme.test/a', open_in_new_tab: true }, { text: 'Decline', url: 'https://acme.test/d' }],
        open_in_new_tab: true,
        extra_data: '{"k":1}',
        expiry_visible: true,
      },
    };
    expect(feedItemOf(row)).toMatchObject({
      tags: ['mentions'],
      expiry: 5000,
      is_expiry_visible: true,
      is_pinned: true,
      can_user_unpin: false,
      message: {
        open_in_new_tab: true,
        avatar: { avatar_url: 'https://cdn.test/b.png', action_url: 'https://acme.test/u/bob' },
        subtext: { text: '@bob', action_url: null },
        actions: [
          { name: 'Accept', url: 'https://acme.test/a', open_in_new_tab: true },
          { name: 'Decline', url: 'https://acme.test/d', open_in_new_tab: false },
        ],
        extra_data: '{"k":1}',
      },
    });
    // No expiry: no countdown, whatever the template said.
    expect(feedItemOf({ ...row, expires_at: null, extras: null })).toMatchObject({ expiry: null, is_expiry_visible: false, message: { subtext: null, actions: [], extra_data: null, open_in_new_tab: false } });
  });

  it('names every parameter it cannot use', () => {
    expect(failingPaths(() => readFeedPageQuery({ page_size: '0', search_after: '[1]', store: '{"store_id":"","query":{"archived":"yes","tags":{"or":[1]}}}' }))).toEqual([
      'page_size',
      'search_after',
      'store.store_id',
      'store.query.archived',
      'store.query.tags.or',
    ]);
    expect(failingPaths(() => readFeedPageQuery({ store: 'not json' }))).toEqual(['store']);
    expect(failingPaths(() => readFeedCountQuery({ stores: '{}' }))).toEqual(['stores']);
  });
});
