import { PROFILE_LIMITS } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { fetchJson } from '@herald/testing';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';

const props = (n: number, prefix = 'p'): Record<string, number> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));
const words = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${tag}-${i}-${'w'.repeat(40)}`);

/** The limits of one profile (bytes, properties, changes per request), and a request of the heaviest allowed kind never stalling the others. */
describe.each(runModeTargets())('profile limits ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus);
  });
  afterAll(() => t?.close());

  it(`stores a profile of exactly ${PROFILE_LIMITS.maxBytes} bytes and refuses one byte more with 413, leaving the profile as it was`, async () => {
    // Stored as {"blob":"…"} and {}: 13 bytes around the blob.
    const blob = (length: number): string => 'x'.repeat(length);
    expect(await t.call('POST', 'v1/user/at-size-limit/', { blob: blob(PROFILE_LIMITS.maxBytes - 13) })).toMatchObject({ status: 201 });
    const past = await t.call('POST', 'v1/user/past-size-limit/', { blob: blob(PROFILE_LIMITS.maxBytes - 12) });
    expect(past).toMatchObject({ status: 413, body: { error_code: 'payload_too_large', message: expect.stringContaining(`${PROFILE_LIMITS.maxBytes + 1} bytes`) } });
    const grow = await t.call('PATCH', 'v1/user/at-size-limit/', { operations: [{ $set: { more: 1 } }] });
    expect(grow).toMatchObject({ status: 413 });
    const stored = await t.call('GET', 'v1/user/at-size-limit/');
    expect((stored.body as { properties: Record<string, unknown> }).properties).toEqual({ blob: blob(PROFILE_LIMITS.maxBytes - 13) });
    // Shrinking is always allowed.
    expect(await t.call('PATCH', 'v1/user/at-size-limit/', { operations: [{ $unset: ['blob'] }] })).toMatchObject({ status: 202 });
  });

  it(`keeps ${PROFILE_LIMITS.maxProperties} properties and refuses the one more an upsert merges in`, async () => {
    expect(await t.call('POST', 'v1/user/many-props/', props(600))).toMatchObject({ status: 201 });
    expect(await t.call('POST', 'v1/user/many-props/', props(400, 'q'))).toMatchObject({ status: 201 });
    const past = await t.call('POST', 'v1/user/many-props/', { one_more: true });
    expect(past).toMatchObject({ status: 413, body: { detail: expect.stringContaining(`properties: at most ${PROFILE_LIMITS.maxProperties} properties per profile`) } });
    expect(await t.call('POST', 'v1/object/team/many-props/', props(PROFILE_LIMITS.maxProperties + 1))).toMatchObject({ status: 400 });
  });

  it(`accepts ${PROFILE_LIMITS.maxChangesPerRequest} changes in one PATCH and refuses one more with 400`, async () => {
    expect(await t.call('POST', 'v1/user/many-changes/', { n: 0 })).toMatchObject({ status: 201 });
    const increments = (n: number): unknown[] => Array.from({ length: n }, () => ({ $increment: { n: 1 } }));
    expect(await t.call('PATCH', 'v1/user/many-changes/', { operations: increments(PROFILE_LIMITS.maxChangesPerRequest) })).toMatchObject({
      status: 202,
      body: { properties: { n: PROFILE_LIMITS.maxChangesPerRequest } },
    });
    const past = await t.call('PATCH', 'v1/user/many-changes/', { operations: increments(PROFILE_LIMITS.maxChangesPerRequest + 1) });
    expect(past).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/^operations: holds 1001 changes: at most 1000/) } });
  });

  // How long the probes take is measured by bench/profile-limits/heavy-profile-updates.bench.ts, not here.
  it('runs the heaviest allowed profile updates while unrelated requests keep being answered', async () => {
    // Near the size limit: two long list properties and a long channel list.
    const profile = { first: words(1_800, 'a'), second: words(1_800, 'b'), $email: Array.from({ length: 1_000 }, (_, i) => `u${i}@example.com`), ...props(500) };
    expect(await t.call('POST', 'v1/user/heavy/', profile)).toMatchObject({ status: 201 });
    // 1,000 changes, each touching a long list: quadratic code spends seconds here.
    const operations = Array.from({ length: PROFILE_LIMITS.maxChangesPerRequest / 4 }, (_, i) => ({
      $append: { first: [`new-${i}`], $email: [`new${i}@example.com`] },
      $remove: { second: [`b-${i}-${'w'.repeat(40)}`], first: [`new-${i}`] },
    }));
    // The heaviest allowed update, three times in a row, probed from the side the whole time.
    let heavyDone = false;
    const heavy = (async () => {
      const statuses: number[] = [];
      for (let round = 0; round < 3; round += 1) statuses.push((await t.call('PATCH', 'v1/user/heavy/', { operations })).status);
      heavyDone = true;
      return { statuses, at: performance.now() };
    })();
    const unrelated: Array<{ status: number; started: number }> = [];
    while (!heavyDone || unrelated.length < 5) {
      const started = performance.now();
      const live = await fetchJson(`${t.app.url}health/live`);
      unrelated.push({ status: live.status, started });
    }
    const finished = await heavy;
    expect(finished.statuses).toEqual([202, 202, 202]);
    // The probes overlapped the heavy updates.
    expect(unrelated[0].started).toBeLessThan(finished.at);
    expect(unrelated.every((u) => u.status === 200)).toBe(true);
  });
});
