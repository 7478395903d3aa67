import { Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AddressInfo } from 'node:net';
import { HeraldError, ParseResult, TOPICS } from '@herald/contracts';
import { busTargets, expectEventually, uniqueName } from '@herald/testing';
import { loadHeraldConfig } from '../config/herald-config';
import { createPlatformContext } from '../launch/platform-factory';
import { ServiceDefinition } from '../launch/service-definition';
import { ConsumerRegistry } from '../nest/consumer-registry';
import { createHttpApp } from '../nest/http-app';

const GROUP = 'herald.ops-test.backlog';
const TOPIC = 'ops-test.backlog.v1';

interface Greeting {
  readonly name: string;
}

function parseGreeting(payload: unknown): ParseResult<Greeting> {
  const name = (payload as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? { ok: true, value: { name } } : { ok: false, errors: [{ path: 'payload.name', message: 'must be a string' }] };
}

function envelope(name: string): string {
  return JSON.stringify({ type: 'greeting', schema_version: 1, message_id: uniqueName('m'), workspace_id: 'ws-1', produced_at: new Date().toISOString(), payload: { name } });
}

/** A consumer that holds every message until the test opens the gate, and rejects "mallory". */
class Gate {
  opened = false;
  private waiters: Array<() => void> = [];
  readonly greeted: string[] = [];

  wait(): Promise<void> {
    return this.opened ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  open(): void {
    this.opened = true;
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}

function backlogService(gate: Gate): ServiceDefinition {
  @Injectable()
  class BacklogConsumer implements OnApplicationBootstrap {
    constructor(private readonly consumers: ConsumerRegistry) {}

    async onApplicationBootstrap(): Promise<void> {
      await this.consumers.consume([TOPIC], {
        groupId: GROUP,
        type: 'greeting',
        schemaVersions: [1],
        parsePayload: parseGreeting,
        handle: async (greeting) => {
          await gate.wait();
          if (greeting.name === 'mallory') throw HeraldError.validation([{ path: 'payload.name', message: 'is banned' }]);
          gate.greeted.push(greeting.name);
        },
      });
    }
  }
  @Module({ providers: [BacklogConsumer] })
  class BacklogModule {}
  return { name: 'workflow-engine', api: 'internal', module: () => ({ module: BacklogModule }) };
}

/** Sum of a metric's samples whose labels include every given one. */
function sampleSum(text: string, metric: string, labels: Record<string, string>): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    if (!Object.entries(labels).every(([name, value]) => line.includes(`${name}="${value}"`))) continue;
    sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * What an operator scales and alerts on, read from `/metrics` as Prometheus reads it,
 * with the platform built as the launchers build it (metrics around the namespaced bus,
 * consumers through the ConsumerRegistry): the lag of a group grows while its handler
 * is held and falls to zero once it runs, per partition, and the message the handler
 * rejects is counted as a dead letter with its reason.
 */
describe.each(busTargets())('operator metrics on $kind', (target) => {
  let app: NestFastifyApplication;
  let url: string;
  let gate: Gate;
  let publish: (names: readonly string[]) => Promise<void>;
  let closeBus: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    gate = new Gate();
    const config = loadHeraldConfig({
      HERALD_LOG_LEVEL: 'error',
      HERALD_PORT: '0',
      HERALD_KAFKA_LAG_REFRESH_MS: '200',
      ...(target.kind === 'kafka' ? { HERALD_KAFKA_BROKERS: target.brokers.join(','), HERALD_KAFKA_NAMESPACE: uniqueName('ops') } : {}),
    });
    // No database module: the URL is never opened.
    const context = createPlatformContext('ops-test', config, 'postgres://unused');
    await context.bus.ensureTopics([
      { name: TOPIC, partitions: 2 },
      { name: TOPICS.deadLetter.name, partitions: 1 },
    ]);
    publish = (names) => context.bus.publish(TOPIC, names.map((name, i) => ({ key: `user-${i}`, value: envelope(name) })));
    app = await createHttpApp('internal', context, [backlogService(gate)]);
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/metrics`;
    closeBus = () => context.bus.close();
  }, 60_000);

  afterAll(async () => {
    gate.open();
    await app?.close();
    await closeBus?.();
  }, 60_000);

  const scrape = async (): Promise<string> => {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    return response.text();
  };

  it('shows the lag grow during a backlog and fall once it is consumed, and counts the dead letter with its reason', async () => {
    // Joined (in the background) and measured: both partitions report, at zero.
    await expectEventually(async () => {
      const text = await scrape();
      for (const partition of ['0', '1']) expect(sampleSum(text, 'herald_bus_consumer_lag', { topic: TOPIC, group: GROUP, partition })).toBe(0);
    }, { timeoutMs: 30_000 });

    const names = [...Array.from({ length: 19 }, (_, i) => `user ${i}`), 'mallory'];
    await publish(names);
    // The handler holds the first message of each partition: nothing is consumed, the lag is the backlog.
    await expectEventually(async () => expect(sampleSum(await scrape(), 'herald_bus_consumer_lag', { topic: TOPIC, group: GROUP })).toBe(names.length), {
      timeoutMs: 20_000,
    });
    const held = await scrape();
    expect(sampleSum(held, 'herald_bus_dead_letters_total', { topic: TOPIC, group: GROUP, reason: 'rejected' }) ?? 0).toBe(0);

    gate.open();
    await expectEventually(async () => {
      const text = await scrape();
      for (const partition of ['0', '1']) expect(sampleSum(text, 'herald_bus_consumer_lag', { topic: TOPIC, group: GROUP, partition })).toBe(0);
      expect(sampleSum(text, 'herald_bus_dead_letters_total', { topic: TOPIC, group: GROUP, reason: 'rejected' })).toBe(1);
      expect(sampleSum(text, 'herald_bus_messages_consumed_total', { topic: TOPIC, group: GROUP, outcome: 'dead_lettered' })).toBe(1);
    }, { timeoutMs: 30_000 });
    expect(gate.greeted).toHaveLength(names.length - 1);
  }, 90_000);
});
