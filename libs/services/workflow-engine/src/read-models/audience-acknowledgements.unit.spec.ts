import { AudienceChanged } from '@herald/contracts';
import { acknowledgedIds } from './live-audience';

describe('acknowledgedIds: what the engine acknowledges once it applied an audience change', () => {
  const subject = { type: 'user' as const, distinct_id: 'ada' };

  it("names a profile announcement and the accepted requests it carried out", () => {
    const change: AudienceChanged = { kind: 'profile', change: 'upserted', workspace_slug: 's', subject, profile: { properties: {}, channels: {} }, source_message_ids: ['req-1'] };
    expect(acknowledgedIds('m-1', change)).toEqual(['m-1', 'req-1']);
  });

  it('names preference-service announcements the engine reads, and those it does not (lists)', () => {
    expect(acknowledgedIds('m-2', { kind: 'preferences', workspace_slug: 's', subject, preferences: { categories: {}, restricted_channels: [] } })).toEqual(['m-2']);
    expect(acknowledgedIds('m-3', { kind: 'list', change: 'deleted', workspace_slug: 's', list_id: 'l' })).toEqual(['m-3']);
  });

  it("never names ingest-api's own changes: preference-service has not applied them yet", () => {
    expect(acknowledgedIds('m-4', { kind: 'user_operations', workspace_slug: 's', distinct_id: 'ada', operations: [], source_message_id: 'req-2' })).toEqual([]);
    expect(acknowledgedIds('m-5', { kind: 'inline_profile', workspace_slug: 's', subject, channels: {}, properties: {}, source_message_id: 'req-3' })).toEqual([]);
  });
});
