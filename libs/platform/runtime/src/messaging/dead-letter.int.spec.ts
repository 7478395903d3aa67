import { DeadLetterPayload, HeraldError, ParseResult, TOPICS } from '@herald/contracts';
import { InProcessBus, KafkaBus, MessageBus, Subscription } from '@herald/bus';
import { busTargets, expectEventually, uniqueName } from '@herald/testing';
import { HeraldLogger } from '../logging/logger';
import { deadLetteringHandler } from './dead-letter';

interface Greeting {
  readonly name: string;
}

function parseGreeting(payload: unknown): ParseResult<Greeting> {
  const name = (payload as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.length > 0
    ? { ok: true, value: { name } }
    : { ok: false, errors: [{ path: 'payload.name', message: 'must be a non-empty string' }] };
}

function envelope(payload: unknown, type = 'greeting'): string {
  return JSON.stringify({
    type,
    schema_version: 1,
    message_id: uniqueName('m'),
    workspace_id: 'ws-1',
    produced_at: new Date().toISOString(),
    payload,
  });
}

const silentLogger = new HeraldLogger('test', 'error', { write: () => undefined });

describe.each(busTargets())('dead-lettering consumer on $kind', (target) => {
  let bus: MessageBus;
  const subscriptions: Subscription[] = [];

  beforeEach(async () => {
    bus =
      target.kind === 'kafka'
        ? new KafkaBus({ brokers: target.brokers, clientId: 'herald-dlt-test' })
        : new InProcessBus();
    await bus.checkHealth();
    await bus.ensureTopics([{ name: TOPICS.deadLetter.name, partitions: 3 }]);
  });

  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
    await bus.close();
  });

  it('moves poison messages to the dead-letter topic with their reason, and goes on with the rest', async () => {
    const topic = uniqueName('dlt.source');
    const group = uniqueName('greeter');
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    const greeted: string[] = [];
    subscriptions.push(
      await bus.subscribe({
        groupId: group,
        topics: [topic],
        handler: deadLetteringHandler(bus, silentLogger, {
          groupId: group,
          type: 'greeting',
          parsePayload: parseGreeting,
          handle: async (payload) => {
            if (payload.name === 'mallory') {
              throw HeraldError.validation([{ path: 'payload.name', message: 'is banned' }]);
            }
            greeted.push(payload.name);
          },
        }),
      }),
    );
    const deadLetters: DeadLetterPayload[] = [];
    subscriptions.push(
      await bus.subscribe({
        groupId: uniqueName('dlt-reader'),
        topics: [TOPICS.deadLetter.name],
        startFrom: 'earliest',
        handler: async (m) => {
          const letter = JSON.parse(m.value.toString()) as DeadLetterPayload;
          if (letter.source_topic === topic) deadLetters.push(letter);
        },
      }),
    );

    await bus.publish(topic, [
      { key: 'k', value: envelope({ name: 'alice' }) },
      { key: 'k', value: '{not json' },
      { key: 'k', value: envelope({ name: 42 }) },
      { key: 'k', value: envelope({ name: 'x' }, 'farewell') },
      { key: 'k', value: envelope({ name: 'mallory' }) },
      { key: 'k', value: envelope({ name: 'bob' }) },
    ]);

    await expectEventually(() => {
      expect(greeted).toEqual(['alice', 'bob']);
      expect(deadLetters).toHaveLength(4);
    }, { timeoutMs: 30_000 });
    expect(deadLetters.map((d) => [d.reason, d.errors.map((e) => e.path)])).toEqual([
      ['invalid envelope', ['']],
      ['invalid payload', ['payload.name']],
      ['invalid envelope', ['type']],
      ['invalid request', ['payload.name']],
    ]);
    expect(deadLetters[0]).toMatchObject({ source_topic: topic, consumer_group: group, key: 'k', original: '{not json' });
  });

  it('retries a transient failure instead of dead-lettering it', async () => {
    const topic = uniqueName('dlt.transient');
    const group = uniqueName('g');
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    let attempts = 0;
    const handled: string[] = [];
    subscriptions.push(
      await bus.subscribe({
        groupId: group,
        topics: [topic],
        retry: { initialDelayMs: 10, maxDelayMs: 50 },
        handler: deadLetteringHandler(bus, silentLogger, {
          groupId: group,
          type: 'greeting',
          parsePayload: parseGreeting,
          handle: async (payload) => {
            if (++attempts < 3) throw new Error('database briefly unavailable');
            handled.push(payload.name);
          },
        }),
      }),
    );

    await bus.publish(topic, [{ key: 'k', value: envelope({ name: 'carol' }) }]);

    await expectEventually(() => expect(handled).toEqual(['carol']), { timeoutMs: 30_000 });
    expect(attempts).toBe(3);
  });
});
