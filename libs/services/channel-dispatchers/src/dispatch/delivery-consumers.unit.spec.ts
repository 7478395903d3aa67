import { CHANNELS, deliveryTopic } from '@herald/contracts';
import { declaredConsumers } from '@herald/runtime';
import { DeliveryConsumers } from './delivery-consumers';

describe('DeliveryConsumers', () => {
  it('declares one batch consumer per channel, each in its own group on its channel’s topic', () => {
    const declared = [...declaredConsumers(DeliveryConsumers).values()];
    // A channel added to CHANNELS without a handler here would never be dispatched.
    expect(declared.map((d) => d.groupId).sort()).toEqual(CHANNELS.map((channel) => `herald.dispatch.${channel}`).sort());
    for (const channel of CHANNELS) {
      expect(declared.find((d) => d.groupId === `herald.dispatch.${channel}`)).toMatchObject({ topics: [deliveryTopic(channel).name], batch: true });
    }
  });
});
