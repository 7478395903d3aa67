import { randomUUID } from 'node:crypto';
import { Controller, DynamicModule, Module } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { Registry } from 'prom-client';
import { InProcessBus, IncomingMessage, MessageOutcome } from '@herald/bus';
import { DeadLetterPayload, Envelope, ParseResult, TOPICS, envelopeOf } from '@herald/contracts';
import { expectEventually, uniqueName } from '@herald/testing';
import { ParsedMessage } from '../../messaging/dead-letter';
import { TestHttpApp, startTestHttpApp } from '../../testing/test-http-app';
import { InstrumentedBus } from '../../metrics/metrics';
import { BusMessageContext, ConsumerOf } from './consumer-of';

interface Greeting {
  readonly name: string;
}

function parseGreeting(payload: unknown): ParseResult<Greeting> {
  const name = typeof payload === 'object' && payload !== null && 'name' in payload ? payload.name : undefined;
  return typeof name === 'string' ? { ok: true, value: { name } } : { ok: false, errors: [{ path: 'name', message: 'is required' }] };
}

const GREETINGS = uniqueName('greetings');
const BATCHED = uniqueName('batched');
const RAW = uniqueName('raw');
const RAW_BATCHED = uniqueName('raw-batched');
const GREETING = { type: 'greeting', schemaVersions: [1], parsePayload: parseGreeting };

/** What the handlers saw, and the gate the batch handler waits on. */
class Seen {
  readonly greetings: Array<{ name: string; messageId: string; key: string }> = [];
  readonly batches: string[][] = [];
  readonly raw: string[] = [];
  readonly rawBatches: string[][] = [];
  releaseBatch!: () => void;
  batchGate = new Promise<void>((resolve) => (this.releaseBatch = resolve));
}
const seen = new Seen();

@Controller()
class GreetingConsumers {
  @ConsumerOf({ groupId: 'test.greetings', topics: [GREETINGS], messages: GREETING })
  async greet(@Payload() greeting: Greeting, @Ctx() context: BusMessageContext<Envelope<Greeting>>): Promise<void> {
    if (greeting.name === 'poison') throw new TypeError('cannot greet poison');
    seen.greetings.push({ name: greeting.name, messageId: context.envelope.message_id, key: context.message.key });
  }

  @ConsumerOf({ groupId: 'test.batched', topics: [BATCHED], messages: GREETING, batch: true })
  async greetAll(greetings: readonly ParsedMessage<Greeting>[]): Promise<void> {
    await seen.batchGate;
    seen.batches.push(greetings.map((g) => g.payload.name));
  }

  // Reports a message it set aside itself (as the Kafka ingress does with what it dead-letters).
  @ConsumerOf({ groupId: 'test.raw-batched', topics: [RAW_BATCHED], batch: true })
  async readAll(messages: readonly IncomingMessage[]): Promise<MessageOutcome[]> {
    seen.rawBatches.push(messages.map((m) => m.value.toString()));
    return messages.map((m) => (m.value.toString() === 'set aside' ? 'dead_lettered' : 'handled'));
  }

  @ConsumerOf({ groupId: 'test.raw', topics: [RAW], groupPerReplica: true })
  async read(message: IncomingMessage): Promise<void> {
    seen.raw.push(message.value.toString());
  }
}

@Module({ controllers: [GreetingConsumers] })
class GreetingModule {}

const greetingService = { name: 'workflow-engine' as const, api: 'internal' as const, module: (): DynamicModule => ({ module: GreetingModule }) };

const greeting = (name: unknown): string => JSON.stringify(envelopeOf('greeting', 1, randomUUID(), 'ws', new Date(), { name }));

describe('HeraldBusTransport', () => {
  let bus: InProcessBus;
  let app: TestHttpApp;
  /** The bus's metrics, as a deployed service counts them (the test app takes the bus it is given as it is). */
  const metrics = new Registry();

  beforeAll(async () => {
    bus = new InProcessBus();
    await bus.ensureTopics([GREETINGS, BATCHED, RAW, RAW_BATCHED].map((name) => ({ name, partitions: 2 })));
    // Published before the start: `groupPerReplica` reads from the latest offset, so this one is not read.
    await bus.publish(RAW, [{ key: 'k', value: 'before the start' }]);
    app = await startTestHttpApp(greetingService, 'postgres://unused', { bus: new InstrumentedBus(bus, metrics), env: { HERALD_MESSAGE_MAX_ATTEMPTS: '2' } });
  });

  afterAll(async () => {
    seen.releaseBatch();
    await app.close();
    await bus.close();
  });

  async function readDeadLetters(): Promise<DeadLetterPayload[]> {
    const letters: DeadLetterPayload[] = [];
    await bus.subscribe({
      groupId: uniqueName('dlt-reader'),
      topics: [TOPICS.deadLetter.name],
      startFrom: 'earliest',
      handler: async (m) => void letters.push(JSON.parse(m.value.toString()) as DeadLetterPayload),
    });
    return letters;
  }

  it('hands a declared handler the payloads of its topic, with the envelope and the message as context', async () => {
    await bus.publish(GREETINGS, [{ key: 'user-1', value: greeting('ada') }]);
    await expectEventually(() => expect(seen.greetings).toEqual([{ name: 'ada', messageId: expect.any(String), key: 'user-1' }]));
  });

  it('dead-letters what does not parse, and a message whose handler keeps failing, and goes on', async () => {
    const letters = await readDeadLetters();
    await bus.publish(GREETINGS, [
      { key: 'user-2', value: greeting(42) },
      { key: 'user-2', value: greeting('poison') },
      { key: 'user-2', value: greeting('grace') },
    ]);
    await expectEventually(() => expect(seen.greetings.map((g) => g.name)).toContain('grace'), { timeoutMs: 10_000 });
    await expectEventually(() =>
      expect(letters.filter((l) => l.source_topic === GREETINGS).map((l) => [l.reason_code, l.consumer_group])).toEqual([
        ['invalid_payload', 'test.greetings'],
        ['attempts_exhausted', 'test.greetings'],
      ]),
    );
    expect(letters.find((l) => l.reason_code === 'attempts_exhausted')?.reason).toContain('cannot greet poison');
  });

  it('hands a batch handler a batch, and commits its offsets only once the handler resolves', async () => {
    await bus.publish(BATCHED, [
      { key: 'a', value: greeting('one') },
      { key: 'a', value: greeting('two') },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const unconsumed = (): number => bus.unconsumedByGroup().get('test.batched') ?? 0;
    expect(unconsumed()).toBe(2);
    seen.releaseBatch();
    await expectEventually(() => expect(seen.batches.flat()).toEqual(['one', 'two']));
    await expectEventually(() => expect(unconsumed()).toBe(0));
  });

  it('counts what a raw batch handler reports it set aside as dead-lettered, and the rest as consumed', async () => {
    await bus.publish(RAW_BATCHED, [
      { key: 'k', value: 'kept' },
      { key: 'k', value: 'set aside' },
      { key: 'k', value: 'kept too' },
    ]);
    await expectEventually(() => expect(seen.rawBatches.flat()).toEqual(['kept', 'set aside', 'kept too']));
    const consumed = async (outcome: string): Promise<number> =>
      (await metrics.getSingleMetric('herald_bus_messages_consumed_total')?.get())?.values.find((v) => v.labels.group === 'test.raw-batched' && v.labels.outcome === outcome)?.value ?? 0;
    await expectEventually(async () => expect([await consumed('dead_lettered'), await consumed('ok')]).toEqual([1, 2]));
  });

  it('gives a per-replica group a group of its own, from the latest offset', async () => {
    await bus.publish(RAW, [{ key: 'k', value: 'after the start' }]);
    await expectEventually(() => expect(seen.raw).toEqual(['after the start']));
  });
});

const SLOW = uniqueName('slow');
/** The slow handler's progress, and the gate it waits on. */
const slow = { entered: false, finished: false, release: (): void => undefined };

@Controller()
class SlowConsumer {
  @ConsumerOf({ groupId: 'test.slow', topics: [SLOW] })
  async read(): Promise<void> {
    slow.entered = true;
    await new Promise<void>((resolve) => (slow.release = resolve));
    slow.finished = true;
  }
}

@Module({ controllers: [SlowConsumer] })
class SlowModule {}

describe('HeraldBusTransport on shutdown', () => {
  it('stops its consumers as the application closes, waiting for the handler in flight', async () => {
    const bus = new InProcessBus();
    await bus.ensureTopics([{ name: SLOW, partitions: 1 }]);
    const app = await startTestHttpApp({ ...greetingService, module: (): DynamicModule => ({ module: SlowModule }) }, 'postgres://unused', { bus });
    await bus.publish(SLOW, [{ key: 'k', value: 'slow' }]);
    await expectEventually(() => expect(slow.entered).toBe(true));
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    slow.release();
    await closing;
    expect(slow.finished).toBe(true);
    await bus.close();
  });
});
