import { randomUUID } from 'node:crypto';
import { BROADCAST_ACCEPTED_TYPE, BroadcastAccepted, TOPICS, TriggerAccepted, envelopeOf } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { AudienceTestApp, startAudienceTestApp } from '../testing/audience-test-app';

/** Small pages, so lists of a few members cross page boundaries as lists of thousands do with the production page. */
const PAGE_SIZE = 2;

describe.each(runModeTargets())('broadcast fan-out ($name)', ({ database, bus }) => {
  let t: AudienceTestApp;
  const triggers: Array<{ key: string; id: string; payload: TriggerAccepted }> = [];

  beforeAll(async () => {
    t = await startAudienceTestApp(database, bus, { fanOut: { pageSize: PAGE_SIZE } });
    await t.bus.subscribe({
      groupId: `trigger-reader-${randomUUID()}`,
      topics: [TOPICS.triggerAccepted.name],
      handler: async (message) => {
        const envelope = JSON.parse(message.value.toString('utf8')) as { message_id: string; payload: TriggerAccepted };
        triggers.push({ key: message.key, id: envelope.message_id, payload: envelope.payload });
      },
    });
  });
  afterAll(() => t?.close());

  it("starts one run per member of the list, with the broadcast's inline workflow, once however often the broadcast arrives", async () => {
    expect((await t.call('POST', 'v1/subscriber_list/', { list_id: 'launch' })).status).toBe(201);
    expect((await t.call('POST', 'v1/subscriber_list/launch/subscriber/add/', { distinct_ids: ['m1', 'm2', 'm3'] })).status).toBe(201);
    const broadcast: BroadcastAccepted = {
      message_id: randomUUID(),
      workspace_slug: 'staging',
      list_id: 'launch',
      template: 'launch-news',
      notification_category: 'product',
      channels: ['email'],
      data: { version: '2.0' },
      delay: '0d0h0m5s',
      accepted_at: new Date().toISOString(),
    };
    const value = JSON.stringify(envelopeOf(BROADCAST_ACCEPTED_TYPE, 1, broadcast.message_id, t.workspace.id, new Date(), broadcast));
    await t.bus.publish(TOPICS.broadcastAccepted.name, [{ key: `${t.workspace.id}:launch`, value }]);
    await t.bus.publish(TOPICS.broadcastAccepted.name, [{ key: `${t.workspace.id}:launch`, value }]);

    const mine = (): typeof triggers => triggers.filter((m) => m.payload.message_id === broadcast.message_id);
    await expectEventually(() => expect(mine()).toHaveLength(6));
    expect(new Set(mine().map((m) => m.id)).size).toBe(3);
    expect(mine().map((m) => m.key).sort()).toEqual([...[1, 2, 3].map((i) => `${t.workspace.id}:m${i}`), ...[1, 2, 3].map((i) => `${t.workspace.id}:m${i}`)].sort());
    expect(mine()[0].payload).toMatchObject({
      workflow: 'broadcast:launch',
      data: { version: '2.0' },
      recipient_count: 3,
      inline_workflow: {
        slug: 'broadcast:launch',
        definition: {
          category: 'product',
          tree: { nodes: [{ node_type: 'delay', duration: '0d0h0m5s' }, { node_type: 'send_multi_channel', template: 'launch-news', channels: ['email'] }] },
        },
      },
    });
  });

  it("carries each member's stored profile as of the fan-out, the tenant's merged over the global one, so a user saved just before is reached", async () => {
    expect((await t.call('POST', 'v1/user/pat/', { $email: ['pat@example.com'], name: 'Pat', $locale: 'de', plan: 'free' })).status).toBe(201);
    expect((await t.call('POST', 'v1/user/pat/', { $context: { tenant_id: 'acme' }, plan: 'team', $sms: ['+15550001'] })).status).toBeLessThan(300);
    expect((await t.call('POST', 'v1/subscriber_list/', { list_id: 'acme-news' })).status).toBe(201);
    expect((await t.call('POST', 'v1/subscriber_list/acme-news/subscriber/add/', { distinct_ids: ['pat', 'nobody'] })).status).toBe(201);
    const broadcast: BroadcastAccepted = {
      message_id: randomUUID(),
      workspace_slug: 'staging',
      list_id: 'acme-news',
      template: 'news',
      notification_category: 'product',
      data: {},
      tenant_id: 'acme',
      accepted_at: new Date().toISOString(),
    };
    await t.bus.publish(TOPICS.broadcastAccepted.name, [{ key: `${t.workspace.id}:acme-news`, value: JSON.stringify(envelopeOf(BROADCAST_ACCEPTED_TYPE, 1, broadcast.message_id, t.workspace.id, new Date(), broadcast)) }]);
    const recipientOf = (distinctId: string) => triggers.find((m) => m.payload.message_id === broadcast.message_id && m.payload.recipient.kind === 'user' && m.payload.recipient.distinct_id === distinctId)?.payload.recipient;
    await expectEventually(() => expect([recipientOf('pat'), recipientOf('nobody')].every((r) => r !== undefined)).toBe(true));
    expect(recipientOf('pat')).toMatchObject({
      inline: false,
      locale: 'de',
      properties: { name: 'Pat', plan: 'team' },
      channels: { email: ['pat@example.com'], sms: ['+15550001'] },
    });
    // A member without a stored profile leaves the engine to its own copy.
    expect(recipientOf('nobody')).toMatchObject({ inline: false, channels: {}, properties: {} });
  });

  const broadcastTo = async (listId: string): Promise<string> => {
    const broadcast: BroadcastAccepted = {
      message_id: randomUUID(),
      workspace_slug: 'staging',
      list_id: listId,
      template: 'news',
      notification_category: 'product',
      data: {},
      accepted_at: new Date().toISOString(),
    };
    const value = JSON.stringify(envelopeOf(BROADCAST_ACCEPTED_TYPE, 1, broadcast.message_id, t.workspace.id, new Date(), broadcast));
    await t.bus.publish(TOPICS.broadcastAccepted.name, [{ key: `${t.workspace.id}:${listId}`, value }]);
    return broadcast.message_id;
  };

  // 7: three full pages and a partial one; 6: full pages only, ended by an empty read.
  it.each([7, 3 * PAGE_SIZE])('reaches every member of a list of %i across pages: one trigger each, in list order, each with the count', async (size) => {
    const listId = `paged-${size}`;
    // Added one call at a time, so the list's order (its member ids) is known.
    const members = Array.from({ length: size }, (_, n) => `${listId}-member-${n}`);
    expect((await t.call('POST', 'v1/subscriber_list/', { list_id: listId })).status).toBe(201);
    for (const member of members) expect((await t.call('POST', `v1/subscriber_list/${listId}/subscriber/add/`, { distinct_ids: [member] })).status).toBe(201);

    const messageId = await broadcastTo(listId);
    const mine = (): typeof triggers => triggers.filter((m) => m.payload.message_id === messageId);
    await expectEventually(() => expect(mine()).toHaveLength(size));
    // Nothing more comes: a second broadcast of the list is fanned out after the first (same key), and each
    // member's two triggers share a key, so once all of the second's are in, any extra of the first's would be.
    const marker = await broadcastTo(listId);
    await expectEventually(() => expect(triggers.filter((m) => m.payload.message_id === marker)).toHaveLength(size));
    const inListOrder = [...mine()].sort((a, b) => a.payload.recipient_index - b.payload.recipient_index);
    expect(inListOrder.map((m) => m.payload.recipient_index)).toEqual(Array.from({ length: size }, (_, n) => n));
    expect(inListOrder.map((m) => (m.payload.recipient.kind === 'user' ? m.payload.recipient.distinct_id : null))).toEqual(members);
    expect(inListOrder.map((m) => m.key)).toEqual(members.map((member) => `${t.workspace.id}:${member}`));
    expect(new Set(mine().map((m) => m.payload.recipient_count))).toEqual(new Set([size]));
    expect(new Set(mine().map((m) => m.id)).size).toBe(size);
  });
});
