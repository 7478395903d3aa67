import { DeadLetterPayload, TOPICS, TriggerAccepted } from '@herald/contracts';
import { expectEventually } from '@herald/testing';
import { INGRESS_SIGNATURE_HEADER, INGRESS_WORKSPACE_KEY_HEADER, signIngressMessage } from './ingress-signature';
import { IngestTestApp, TestWorkspace, startIngestTestApp } from '../testing/ingest-test-app';
import { runModeTargets } from '@herald/runtime';
import { INGRESS_GROUP_ID } from './kafka-ingress.consumer';

/** Dead letters name the group as the broker does: on Kafka, under the test's namespace. */
const fromIngress = (d: DeadLetterPayload): boolean => d.consumer_group === INGRESS_GROUP_ID || d.consumer_group.endsWith(`.${INGRESS_GROUP_ID}`);

describe.each(runModeTargets())('the Kafka ingress ($name)', ({ database, bus }) => {
  let t: IngestTestApp;

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
    await t.announceWorkflow(t.workspace, 'from-kafka');
  });
  afterAll(() => t?.close());

  const publish = (topic: string, value: string, headers: Record<string, string>): Promise<void> =>
    t.bus.publish(topic, [{ key: 'producer-chosen-key', value, headers }]);
  const signed = (value: string, ws: TestWorkspace = t.workspace): Record<string, string> => ({
    [INGRESS_WORKSPACE_KEY_HEADER]: ws.workspaceKey,
    [INGRESS_SIGNATURE_HEADER]: signIngressMessage(value, ws.workspaceSecret),
  });
  const triggersFor = (recipient: string): TriggerAccepted[] =>
    t.triggers.map((c) => c.envelope.payload as TriggerAccepted).filter((p) => p.recipient.kind === 'user' && p.recipient.distinct_id === recipient);

  it('accepts a signed trigger and fans it out like a REST one, re-keyed by recipient', async () => {
    const value = JSON.stringify({ workflow: 'from-kafka', recipients: ['k1', 'k2'], data: { via: 'kafka' } });
    await publish(TOPICS.ingressTrigger.name, value, signed(value));
    await expectEventually(() => expect([...triggersFor('k1'), ...triggersFor('k2')]).toHaveLength(2));
    expect(triggersFor('k1')[0]).toMatchObject({ accepted_via: 'kafka', data: { via: 'kafka' }, recipient_count: 2 });
    expect(t.triggers.find((c) => (c.envelope.payload as TriggerAccepted).recipient.kind === 'user' && c.key.endsWith(':k2'))?.key).toBe(`${t.workspace.id}:k2`);
  });

  it("accepts one key's messages in their order when a batch holds many keys, each once", async () => {
    // Every other message of the ordered key carries an idempotency key, whose claim is a
    // database round trip: accepted side by side, the ones without would overtake them.
    const ordered = Array.from({ length: 30 }, (_, n) => JSON.stringify({ workflow: 'from-kafka', recipients: ['in-order'], data: { n }, ...(n % 2 === 0 ? { $idempotency_key: `order-${n}-${Date.now()}` } : {}) }));
    const others = Array.from({ length: 30 }, (_, n) => JSON.stringify({ workflow: 'from-kafka', recipients: [`side-${n}`], data: { n } }));
    const messages = ordered.flatMap((value, n) => [
      { key: 'one-producer-key', value, headers: signed(value) },
      { key: `side-key-${n}`, value: others[n], headers: signed(others[n]) },
    ]);
    await t.bus.publish(TOPICS.ingressTrigger.name, messages);
    await expectEventually(() => expect(triggersFor('in-order')).toHaveLength(30));
    expect(triggersFor('in-order').map((p) => (p.data as { n: number }).n)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    await expectEventually(() => expect(others.map((_, n) => triggersFor(`side-${n}`).length)).toEqual(others.map(() => 1)));
  });

  it('accepts a signed event', async () => {
    const value = JSON.stringify({ distinct_id: 'k3', event: 'kafka-event' });
    await publish(TOPICS.ingressEvent.name, value, signed(value));
    await expectEventually(() => expect(t.events.some((c) => (c.envelope.payload as { event: string }).event === 'kafka-event')).toBe(true));
  });

  it('dead-letters what can never be accepted, with the reasons, and goes on with the next message', async () => {
    const invalid = JSON.stringify({ workflow: 'from-kafka', recipients: [{ distinct_id: 'x', $email: ['nope'] }] });
    const unknownWorkflow = JSON.stringify({ workflow: 'missing', recipients: ['x'] });
    const tampered = JSON.stringify({ workflow: 'from-kafka', recipients: ['tampered'] });
    const forged = JSON.stringify({ workflow: 'from-kafka', recipients: ['forged'] });
    const good = JSON.stringify({ workflow: 'from-kafka', recipients: ['after-poison'] });
    await publish(TOPICS.ingressTrigger.name, invalid, signed(invalid));
    await publish(TOPICS.ingressTrigger.name, unknownWorkflow, signed(unknownWorkflow));
    await publish(TOPICS.ingressTrigger.name, 'not json at all', signed('not json at all'));
    await publish(TOPICS.ingressTrigger.name, tampered, signed(forged));
    await publish(TOPICS.ingressTrigger.name, forged, {});
    await publish(TOPICS.ingressTrigger.name, good, signed(good));

    await expectEventually(() => expect(triggersFor('after-poison')).toHaveLength(1));
    const ingressLetters = (): DeadLetterPayload[] => t.deadLetters.filter(fromIngress);
    await expectEventually(() => expect(ingressLetters()).toHaveLength(5));
    const letters = ingressLetters();
    expect(letters.every((d) => (d.source_topic === TOPICS.ingressTrigger.name || d.source_topic.endsWith(`.${TOPICS.ingressTrigger.name}`)) && d.reason_code === 'rejected')).toBe(true);
    expect(letters[0]).toMatchObject({ reason: 'invalid payload', errors: [{ path: 'recipients[0].$email[0]', message: expect.any(String) }], original: invalid });
    expect(letters[1]).toMatchObject({ reason: "workflow 'missing' not found" });
    expect(letters[2]).toMatchObject({ reason: 'invalid JSON' });
    expect(letters[3]).toMatchObject({ reason: 'authentication failed', errors: [{ path: `headers.${INGRESS_SIGNATURE_HEADER}` }] });
    expect(letters[4]).toMatchObject({ reason: 'authentication failed', errors: [{ path: `headers.${INGRESS_WORKSPACE_KEY_HEADER}` }] });
    expect([...triggersFor('tampered'), ...triggersFor('forged'), ...triggersFor('x')]).toEqual([]);
  });

  it('dead-letters NUL characters, lone surrogates (values and keys) and over-deep bodies with their field paths, as REST refuses them', async () => {
    const before = t.deadLetters.filter(fromIngress).length;
    const bodies = [
      JSON.stringify({ workflow: 'from-kafka', recipients: ['h1'], $idempotency_key: 'nul\u0000key' }),
      JSON.stringify({ workflow: 'from-kafka', recipients: ['h2'], data: { ['bad\ud800key']: 1 } }),
      JSON.stringify({ distinct_id: 'h3', event: 'e', properties: { list: ['ok', '\udc00'] } }),
      `{"workflow":"from-kafka","recipients":["h4"],"data":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
    ];
    await publish(TOPICS.ingressTrigger.name, bodies[0], signed(bodies[0]));
    await publish(TOPICS.ingressTrigger.name, bodies[1], signed(bodies[1]));
    await publish(TOPICS.ingressEvent.name, bodies[2], signed(bodies[2]));
    await publish(TOPICS.ingressTrigger.name, bodies[3], signed(bodies[3]));
    const marker = JSON.stringify({ workflow: 'from-kafka', recipients: ['after-hygiene'] });
    await publish(TOPICS.ingressTrigger.name, marker, signed(marker));
    await expectEventually(() => expect(triggersFor('after-hygiene')).toHaveLength(1));
    await expectEventually(() => expect(t.deadLetters.filter(fromIngress)).toHaveLength(before + 4));
    const letters = t.deadLetters.filter(fromIngress).slice(before);
    const byRecipient = (needle: string) => letters.find((d) => String(d.original).includes(needle));
    expect(byRecipient('"h1"')).toMatchObject({ reason: 'invalid payload', errors: [{ path: '$idempotency_key', message: expect.stringContaining('NUL') }] });
    expect(byRecipient('"h2"')).toMatchObject({ reason: 'invalid payload', errors: [{ path: 'data["bad\\ud800key"]', message: expect.stringContaining('surrogate') }] });
    expect(byRecipient('"h3"')).toMatchObject({ reason: 'invalid payload', errors: [{ path: 'properties.list[1]', message: expect.stringContaining('surrogate') }] });
    expect(byRecipient('"h4"')).toMatchObject({ reason: 'invalid payload', errors: [{ message: expect.stringContaining('nested too deeply') }] });
    expect([...triggersFor('h1'), ...triggersFor('h2'), ...triggersFor('h4')]).toEqual([]);
  });

  it('shares idempotency keys with REST', async () => {
    const rest = await t.call('POST', 'trigger/', { workflow: 'from-kafka', recipients: ['k-idem'], $idempotency_key: 'cross-door' });
    const value = JSON.stringify({ workflow: 'from-kafka', recipients: ['k-idem'], $idempotency_key: 'cross-door' });
    await publish(TOPICS.ingressTrigger.name, value, signed(value));
    const marker = JSON.stringify({ workflow: 'from-kafka', recipients: ['k-idem-marker'] });
    await publish(TOPICS.ingressTrigger.name, marker, signed(marker));
    await expectEventually(() => expect(triggersFor('k-idem-marker')).toHaveLength(1));
    expect(triggersFor('k-idem').map((p) => p.message_id)).toEqual([(rest.body as { message_id: string }).message_id]);
  });
});
