import { Registry } from 'prom-client';
import { outboxRelayMetrics } from './metrics';

describe('outboxRelayMetrics', () => {
  it('counts parked rows and reports each schema\'s parked table on scrape, on one shared registry', async () => {
    const registry = new Registry();
    const audience = outboxRelayMetrics(registry, 'audience');
    const engine = outboxRelayMetrics(registry, 'engine');
    let audienceParked = 2;
    audience.watchParked(async () => audienceParked);
    engine.watchParked(async () => 0);

    audience.onParked();
    audience.onParked();

    let text = await registry.metrics();
    expect(text).toContain('herald_outbox_rows_parked_total{schema="audience"} 2');
    expect(text).toContain('herald_outbox_rows_parked_total{schema="engine"} 0');
    expect(text).toContain('herald_outbox_parked_rows{schema="audience"} 2');
    expect(text).toContain('herald_outbox_parked_rows{schema="engine"} 0');

    // An operator requeued one: the gauge follows the table, not the process's count.
    audienceParked = 1;
    text = await registry.metrics();
    expect(text).toContain('herald_outbox_parked_rows{schema="audience"} 1');
  });

  it('keeps the last value when the database does not answer a scrape', async () => {
    const registry = new Registry();
    const metrics = outboxRelayMetrics(registry, 'dispatch');
    let answer: () => Promise<number> = async () => 3;
    metrics.watchParked(() => answer());
    expect(await registry.metrics()).toContain('herald_outbox_parked_rows{schema="dispatch"} 3');

    answer = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    expect(await registry.metrics()).toContain('herald_outbox_parked_rows{schema="dispatch"} 3');
  });
});
