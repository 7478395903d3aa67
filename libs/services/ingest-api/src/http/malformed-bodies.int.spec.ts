import { TriggerAccepted } from '@herald/contracts';
import { expectEventually } from '@herald/testing';
import { PROBE_RECIPIENT, IngestTestApp, startIngestTestApp } from '../testing/ingest-test-app';
import { runModeTargets } from '@herald/runtime';
import { eventSlots, mutate, triggerSlots } from '../validation/testing/mutations';
import { SeededRandom } from '../validation/testing/seeded-random';
import { randomJson, randomValidEvent, randomValidTrigger } from '../validation/testing/valid-generators';

/**
 * Malformed bodies over HTTP, seeded so that a failure replays: mutated triggers and
 * events (invalid by construction, see validation/testing/mutations.ts), arbitrary
 * JSON, broken JSON text and bulk arrays of bad records. Every one must get a 4xx whose
 * detail names where it is wrong, never a 5xx, and none may reach the engine's topic.
 */
const SEED = 0x0b0d_1e5;
const MUTATED_TRIGGERS = 700;
const MUTATED_EVENTS = 200;
const JUNK = 100;
const BROKEN_TEXT = 60;
const BAD_BULKS = 40;
const CONCURRENCY = 16;

interface Case {
  readonly label: string;
  readonly path: 'trigger/' | 'event/';
  readonly body: string;
  /** The response must be a 207 whose records all failed, instead of a 4xx. */
  readonly bulk?: boolean;
  /** Top-level fields a mutation broke: the detail must name at least one. */
  readonly fields?: readonly string[];
}

const topLevelFields = (paths: readonly string[]): string[] => paths.map((path) => path.split(/[.[]/)[0]).filter((field) => field !== '');

function malformedCases(): Case[] {
  const rng = new SeededRandom(SEED);
  const cases: Case[] = [];
  for (let i = 0; i < MUTATED_TRIGGERS; i += 1) {
    const body = randomValidTrigger(rng);
    body.workflow = 'fuzzed';
    const fields = topLevelFields(mutate(rng, body, triggerSlots));
    cases.push({ label: `mutated trigger #${i}`, path: 'trigger/', body: JSON.stringify(body), fields });
  }
  for (let i = 0; i < MUTATED_EVENTS; i += 1) {
    const body = randomValidEvent(rng);
    const fields = topLevelFields(mutate(rng, body, eventSlots));
    cases.push({ label: `mutated event #${i}`, path: 'event/', body: JSON.stringify(body), fields });
  }
  for (let i = 0; i < JUNK; i += 1) {
    const junk = randomJson(rng);
    // An array is a bulk call; junk without the required fields is refused either way.
    cases.push({ label: `junk #${i}`, path: i % 2 === 0 ? 'trigger/' : 'event/', body: JSON.stringify(junk), bulk: Array.isArray(junk) && junk.length > 0 && junk.length <= 100 });
  }
  for (let i = 0; i < BROKEN_TEXT; i += 1) {
    const text = JSON.stringify(randomValidTrigger(rng));
    const cut = rng.between(0, text.length - 1);
    const broken = rng.pick([text.slice(0, cut), `${text.slice(0, cut)}\u0000${text.slice(cut)}`, `${text}}`, `'${text}'`, text.replace(/"/g, '')]);
    cases.push({ label: `broken JSON #${i}`, path: 'trigger/', body: broken });
  }
  for (let i = 0; i < BAD_BULKS; i += 1) {
    const records = Array.from({ length: rng.between(1, 5) }, () => {
      const record = randomValidTrigger(rng);
      record.workflow = 'fuzzed';
      mutate(rng, record, triggerSlots);
      return record;
    });
    cases.push({ label: `bulk of bad records #${i}`, path: 'trigger/', body: JSON.stringify(records), bulk: true });
  }
  return cases;
}

async function inBatches<T>(items: readonly T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(run));
}

describe.each(runModeTargets())('malformed bodies over HTTP ($name)', ({ database, bus }) => {
  let t: IngestTestApp;

  beforeAll(async () => {
    t = await startIngestTestApp(database, bus);
    await t.announceWorkflow(t.workspace, 'fuzzed');
  });
  afterAll(() => t?.close());

  it(`refuses ${MUTATED_TRIGGERS + MUTATED_EVENTS + JUNK + BROKEN_TEXT + BAD_BULKS} malformed bodies with a 4xx naming the field, none a 5xx, none reaching the engine`, async () => {
    const cases = malformedCases();
    expect(cases.length).toBeGreaterThanOrEqual(1000);
    const before = t.triggers.length;
    const failures: string[] = [];
    await inBatches(cases, CONCURRENCY, async (c) => {
      const response = await t.call('POST', c.path, c.body);
      if (c.bulk && response.status === 207) {
        const records = (response.body as { records: Array<{ status: string; status_code: number; error?: { message: string } }> }).records;
        const wrong = records.filter((r) => r.status !== 'error' || r.status_code >= 500 || !r.error?.message);
        if (wrong.length > 0) failures.push(`${c.label}: records ${JSON.stringify(wrong).slice(0, 300)}`);
        return;
      }
      const body = response.body as { error_code?: string; detail?: string };
      if (response.status < 400 || response.status >= 500) failures.push(`${c.label}: status ${response.status} for ${c.body.slice(0, 200)}`);
      else if (typeof body.detail !== 'string' || body.detail === '' || typeof body.error_code !== 'string') {
        failures.push(`${c.label}: no error detail in ${JSON.stringify(body).slice(0, 200)}`);
      } else if (c.fields && c.fields.length > 0 && !c.fields.some((field) => body.detail?.includes(field))) {
        failures.push(`${c.label}: detail "${body.detail.slice(0, 200)}" names none of ${c.fields.join(', ')}`);
      }
    });
    expect(failures).toEqual([]);

    // A valid trigger sent last arrives; nothing else did.
    const marker = await t.call('POST', 'trigger/', { workflow: 'fuzzed', recipients: ['fuzz-marker'] });
    expect(marker.status).toBe(202);
    await expectEventually(() => expect(t.triggers.some((c) => (c.envelope.payload as TriggerAccepted).message_id === (marker.body as { message_id: string }).message_id)).toBe(true));
    await t.drain();
    const arrived = t.triggers.slice(before).map((c) => c.envelope.payload as TriggerAccepted);
    expect(arrived.filter((p) => !(p.recipient.kind === 'user' && p.recipient.distinct_id === PROBE_RECIPIENT)).map((p) => p.recipient)).toEqual([
      expect.objectContaining({ distinct_id: 'fuzz-marker' }),
    ]);
  });
});
