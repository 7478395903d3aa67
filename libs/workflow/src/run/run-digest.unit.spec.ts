import { CategoryDefinition, PreferenceSnapshot as AudienceSnapshot } from '@herald/audience';
import { WorkflowNode } from '../definition';
import { PreferenceSnapshot } from './run-context';
import { AccumulationHarness } from './testing/accumulation-harness';
import { T0, at, context, last, ofType, sendEmail, startEvents, types, user, workflow } from './testing/run-builders';

// T0 is Saturday 2025-03-01 10:00 UTC.
const digest = (over: Record<string, unknown> = {}): WorkflowNode =>
  ({ node_type: 'digest', name: 'Daily digest', schedule_type: 'static', schedule: { frequency: 'daily', time: '09:00', tz_selection: 'fixed', tz_fixed: 'UTC' }, ...over }) as WorkflowNode;
const closesAt = (node: WorkflowNode, over: Parameters<typeof startEvents>[1] = {}): string | undefined => {
  const events = startEvents(workflow([node, sendEmail()]), over);
  return ofType(events, 'accumulation.requested.v1')[0]?.request.closes_at;
};
const sent = (harness: AccumulationHarness, runId: string) => ofType(harness.log(runId), 'delivery.requested.v1').map((event) => event.delivery.render_data);

const category: CategoryDefinition = {
  category: 'transactional',
  name: 'Transactional',
  default_preference: 'opt_in',
  digest_schedule_options: {
    options: [
      { id: 'morning', label: 'Mornings', frequency: 'daily', interval: 1, time: { edit_policy: 'editable', default_value: '07:00' }, is_default: true },
      { id: 'weekly', label: 'Weekly', frequency: 'weekly', interval: 1, time: { edit_policy: 'locked', default_value: '10:00' }, weekdays: { edit_policy: 'editable', default_value: ['mo'] }, is_default: false },
    ],
  },
};
const snapshot = (over: Partial<AudienceSnapshot> = {}): PreferenceSnapshot =>
  ({ category, tenant: null, subject: null, subject_in_tenant: null, ...over }) as unknown as PreferenceSnapshot;

describe('digest node', () => {
  describe('given a static daily 09:00 schedule and trigger_min_count 2', () => {
    it('when the owner is cancelled, then it leaves the digest, the next run owns it, and the count left decides the send', () => {
      const harness = new AccumulationHarness(workflow([digest({ trigger_min_count: 2 }), sendEmail()]));
      harness.trigger('r1', { n: 1 }, T0);
      harness.trigger('r2', { n: 2 }, at(1));
      harness.trigger('r3', { n: 3 }, at(2));
      harness.cancel('r1', at(3));
      expect(types(harness.log('r1')).slice(-2)).toEqual(['accumulation.left.v1', 'run.cancelled.v1']);
      expect(ofType(harness.log('r2'), 'accumulation.owned.v1')[0]).toMatchObject({ batch_id: 'r1', closes_at: '2025-03-02T09:00:00.000Z' });
      harness.fire('r2', new Date('2025-03-02T09:00:00.000Z'));
      expect(sent(harness, 'r2')).toEqual([expect.objectContaining({ $batched_events: [{ n: 2 }, { n: 3 }], $batched_events_count: 2 })]);
    });

    it('when the owner is cancelled and one run is left, then the new owner closes it below the minimum and skips it', () => {
      const harness = new AccumulationHarness(workflow([digest({ trigger_min_count: 2 }), sendEmail()]));
      harness.trigger('r1', { n: 1 }, T0);
      harness.trigger('r2', { n: 2 }, at(1));
      harness.cancel('r1', at(2));
      const closed = harness.fire('r2', new Date('2025-03-02T09:00:00.000Z'));
      expect(types(closed).slice(-2)).toEqual(['digest.skipped.v1', 'run.completed.v1']);
      expect(sent(harness, 'r2')).toEqual([]);
    });
  });

  describe('given a static daily 09:00 schedule', () => {
    it('when the zone is fixed, then the digest closes at the next 09:00 there', () => {
      expect(closesAt(digest())).toBe('2025-03-02T09:00:00.000Z');
      expect(closesAt(digest({ schedule: { frequency: 'daily', time: '09:00', tz_selection: 'fixed', tz_fixed: 'America/New_York' } }))).toBe('2025-03-01T14:00:00.000Z');
    });

    it("when the zone is the recipient's, then its $timezone decides, and an unknown one falls back to UTC", () => {
      const node = digest({ schedule: { frequency: 'daily', time: '09:00', tz_selection: 'recipient' } });
      expect(closesAt(node, { recipient: user({ timezone: 'Europe/Berlin' }) })).toBe('2025-03-02T08:00:00.000Z');
      expect(closesAt(node, { recipient: user({ timezone: 'Mars/Olympus' }) })).toBe('2025-03-02T09:00:00.000Z');
    });

    it('when runs arrive before it closes, then one send holds them, retaining 10 by default', () => {
      const harness = new AccumulationHarness(workflow([digest(), sendEmail()]));
      for (let n = 1; n <= 12; n += 1) harness.trigger(`r${n}`, { n }, at(n * 60_000));
      expect(types(harness.log('r2'))).toContain('accumulation.merged.v1');
      harness.fire('r1', new Date('2025-03-02T09:00:00.000Z'));
      const [data] = sent(harness, 'r1');
      expect(data).toMatchObject({ $batched_events_count: 12 });
      expect((data.$batched_events as unknown[]).length).toBe(10);
      expect((data.$batched_events as unknown[])[0]).toEqual({ n: 1 });
    });

    it('when retain_order is last, then the latest events are kept', () => {
      const harness = new AccumulationHarness(workflow([digest({ retain_count: 2, retain_order: 'last' }), sendEmail()]));
      for (const n of [1, 2, 3]) harness.trigger(`r${n}`, { n }, at(n));
      harness.fire('r1', new Date('2025-03-02T09:00:00.000Z'));
      expect(sent(harness, 'r1')[0]).toMatchObject({ $batched_events: [{ n: 2 }, { n: 3 }], $batched_events_count: 3 });
    });
  });

  describe('given trigger_min_count 3', () => {
    const definition = workflow([digest({ trigger_min_count: 3 }), sendEmail()]);

    it('when only two runs arrive, then the digest is skipped, logged, and nothing is sent', () => {
      const harness = new AccumulationHarness(definition);
      harness.trigger('r1', { n: 1 }, T0);
      harness.trigger('r2', { n: 2 }, at(1));
      const close = harness.fire('r1', new Date('2025-03-02T09:00:00.000Z'));
      expect(types(close).slice(-3)).toEqual(['accumulation.released.v1', 'digest.skipped.v1', 'run.completed.v1']);
      expect(ofType(close, 'digest.skipped.v1')[0]).toEqual({ type: 'digest.skipped.v1', path: [0], count: 2, trigger_min_count: 3 });
      expect(sent(harness, 'r1')).toEqual([]);
    });

    it('when three runs arrive, then the digest is sent', () => {
      const harness = new AccumulationHarness(definition);
      for (const n of [1, 2, 3]) harness.trigger(`r${n}`, { n }, at(n));
      harness.fire('r1', new Date('2025-03-02T09:00:00.000Z'));
      expect(sent(harness, 'r1')[0]).toMatchObject({ $batched_events_count: 3 });
    });
  });

  it('given a dynamic schedule, when jq gives a schedule, then it is used, and a malformed one fails the run', () => {
    const node = digest({ schedule_type: 'dynamic', dynamic_schedule_expr: '.digest_schedule', schedule: undefined });
    expect(closesAt(node, { data: { digest_schedule: { frequency: 'hourly', time: '00:30', tz_selection: 'fixed', tz_fixed: 'UTC' } } })).toBe('2025-03-01T10:30:00.000Z');
    const failed = last(startEvents(workflow([node]), { data: { digest_schedule: { frequency: 'fortnightly' } } }));
    expect(failed).toMatchObject({ type: 'run.failed.v1', reason: expect.stringMatching(/^the dynamic schedule .* is not a schedule/), node: { node_type: 'digest' } });
  });

  it('given a dynamic schedule whose next time is after year 9999, when the run reaches it, then the run fails saying so instead of waiting under a timer that cannot be stored', () => {
    const node = digest({ schedule_type: 'dynamic', dynamic_schedule_expr: '.digest_schedule', schedule: undefined });
    const data = { digest_schedule: { frequency: 'hourly', interval: 80_000_000, tz_selection: 'fixed', tz_fixed: 'UTC' } };
    const events = startEvents(workflow([node]), { data });
    expect(ofType(events, 'accumulation.requested.v1')).toEqual([]);
    expect(last(events)).toMatchObject({
      type: 'run.failed.v1',
      reason: "the digest schedule's next time +011150-05-11T08:00:00.000Z is out of range: a timer can be due at 9999-12-31T23:59:59.999Z at the latest",
      node: { node_type: 'digest' },
    });
  });

  describe('given the category digest schedule', () => {
    const node = digest({ schedule_type: 'category_digest_schedule', schedule: undefined });

    it("when the recipient chose nothing, then the category's default option decides, in the recipient's zone", () => {
      expect(closesAt(node, { context: context({ preferences: snapshot() }), recipient: user({ timezone: 'Europe/Berlin' }) })).toBe('2025-03-02T06:00:00.000Z');
    });

    it("when the recipient chose the weekly option, then it decides", () => {
      const subject = { categories: { transactional: { digest_schedule: { id: 'weekly' } } }, restricted_channels: [] } as unknown as AudienceSnapshot['subject'];
      expect(closesAt(node, { context: context({ preferences: snapshot({ subject }) }) })).toBe('2025-03-03T10:00:00.000Z');
    });

    it('when the snapshot has no category, then the run fails saying so', () => {
      const events = startEvents(workflow([node]), { context: context({ preferences: {} }) });
      expect(last(events)).toMatchObject({ type: 'run.failed.v1', reason: 'the preference snapshot carries no notification category to take a digest schedule from' });
    });
  });
});
