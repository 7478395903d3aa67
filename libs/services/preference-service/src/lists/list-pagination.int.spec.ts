import { runModeTargets } from '@herald/runtime';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';

const MEMBERS = 100_000;
const PAGE = 1000;

interface Page {
  meta: { after: string | null; has_next: boolean };
  results: Array<{ id: string; distinct_id: string }>;
}

/**
 * Interface 4.3 at size: 100,000 members read page by page while other clients add and
 * remove members. Every original member must come exactly once, in id order.
 */
describe.each(runModeTargets())('paging 100,000 list subscribers ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
    expect((await t.call('POST', 'v1/subscriber_list/', { list_id: 'big' })).status).toBe(201);
    // Seeded in one statement: 100,000 API calls would test the API's speed, not paging.
    await t.sql(
      `INSERT INTO audience.list_subscribers (workspace_id, list_id, distinct_id)
       SELECT $1, 'big', 'member-' || lpad(g::text, 6, '0') FROM generate_series(1, ${MEMBERS}) AS g ORDER BY g`,
      [t.workspace.id],
    );
    await t.sql(`UPDATE audience.lists SET subscribers_count = ${MEMBERS} WHERE workspace_id = $1 AND list_id = 'big'`, [t.workspace.id]);
  }, 300_000);
  afterAll(() => t?.close());

  it.each(['-id', 'id'] as const)(
    'returns each original member exactly once, in order (sort %s), while members come and go',
    async (sort) => {
      const seen: Array<{ id: bigint; distinctId: string }> = [];
      let paging = true;
      const churn = churnMembers(t, sort, () => paging);
      try {
        let after: string | null = null;
        for (;;) {
          const response = await t.call('GET', `v1/subscriber_list/big/subscriber/?limit=${PAGE}&sort=${sort}${after ? `&after=${after}` : ''}`);
          expect(response.status).toBe(200);
          const page = response.body as Page;
          seen.push(...page.results.map((r) => ({ id: BigInt(r.id), distinctId: r.distinct_id })));
          if (!page.meta.has_next) break;
          after = page.meta.after;
        }
      } finally {
        paging = false;
      }
      const churned = await churn;
      expect(churned).toBeGreaterThan(0);

      // Ids strictly in the requested order across all pages: nothing repeated, nothing out of place.
      const misplaced = seen.findIndex((entry, i) => i > 0 && (sort === 'id' ? entry.id <= seen[i - 1].id : entry.id >= seen[i - 1].id));
      expect(misplaced < 0 ? 'in order' : JSON.stringify(seen.slice(misplaced - 2, misplaced + 2), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).toBe('in order');
      const originals = seen.map((e) => e.distinctId).filter((d) => d.startsWith('member-'));
      const expected = Array.from({ length: MEMBERS }, (_, i) => `member-${String(i + 1).padStart(6, '0')}`);
      expect(originals).toEqual(sort === 'id' ? expected : expected.reverse());
    },
    300_000,
  );
});

/** Adds new members and removes earlier additions through the API until paging ends; answers how many calls it made. */
async function churnMembers(t: AudienceTestApp, sort: string, running: () => boolean): Promise<number> {
  let calls = 0;
  for (let round = 0; running(); round++) {
    const added = Array.from({ length: 20 }, (_, i) => `churn-${sort}-${round}-${i}`);
    expect((await t.call('POST', 'v1/subscriber_list/big/subscriber/add/', { distinct_ids: added })).status).toBe(201);
    if (round > 0) {
      const removed = Array.from({ length: 10 }, (_, i) => `churn-${sort}-${round - 1}-${i}`);
      expect((await t.call('POST', 'v1/subscriber_list/big/subscriber/remove/', { distinct_ids: removed })).status).toBe(201);
    }
    calls += 2;
  }
  return calls;
}
