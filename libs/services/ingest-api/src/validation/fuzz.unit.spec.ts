import { FieldError, ParseResult } from '@herald/contracts';
import { validateBulk } from './bulk';
import { validateEvent } from './event';
import { validateTrigger } from './trigger';
import { locate, parsePath } from './testing/json-path';
import { Slot, eventSlots, mutate, triggerSlots } from './testing/mutations';
import { SeededRandom } from './testing/seeded-random';
import { randomJson, randomValidEvent, randomValidTrigger } from './testing/valid-generators';

/**
 * Seeded fuzzing: valid bodies with every optional shape, and mutations of them that
 * are invalid by construction (wrong types, missing required fields, bad enums and
 * formats, oversize arrays, deep nesting, huge strings, non-objects). The seed is fixed
 * so a failure replays; the failing case's index is in the assertion message.
 */
const SEED = 0x5eed_2024;
const MALFORMED_TRIGGERS = 1200;
const MALFORMED_EVENTS = 400;
const VALID_TRIGGERS = 400;
const VALID_EVENTS = 200;

type Json = Record<string, unknown>;

/** Whether an error path and a mutated path are the same location or one contains the other. */
function related(errorPath: string, mutatedPath: string): boolean {
  const contains = (outer: string, inner: string): boolean =>
    outer === '' || inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  return contains(errorPath, mutatedPath) || contains(mutatedPath, errorPath);
}

/** Every error names a real place: its parent exists, and so does the field unless the error says it is missing. */
function misplaced(body: unknown, errors: readonly FieldError[]): FieldError[] {
  return errors.filter((error) => {
    const segments = typeof error.path === 'string' ? parsePath(error.path) : undefined;
    if (segments === undefined || typeof error.message !== 'string' || error.message === '') return true;
    if (segments.length === 0) return false;
    if (!locate(body, segments.slice(0, -1)).found) return true;
    return !locate(body, segments).found && !error.message.startsWith('is required');
  });
}

// Plain checks that throw with the case's label: a jest expect per case would cost more than the validation.
function validateSafely(validate: (body: unknown) => ParseResult<unknown>, body: unknown, label: string): ParseResult<unknown> {
  try {
    return validate(body);
  } catch (error) {
    throw new Error(`${label}: the validator threw ${String(error)}`);
  }
}

function expectRejected(result: ParseResult<unknown>, body: unknown, mutated: readonly string[], label: string): void {
  if (result.ok) throw new Error(`${label}: accepted a body mutated at ${mutated.join(', ')}`);
  const wrong = misplaced(body, result.errors);
  if (wrong.length > 0) throw new Error(`${label}: errors at no real location: ${JSON.stringify(wrong).slice(0, 500)}`);
  // Mutations at disjoint places each leave their own error. Otherwise one may hide another
  // (a later one replaces an ancestor; a bad top-level tenant_id stops the $context
  // comparisons), and one related error is all that can be asked.
  const disjoint = !mutated.includes('tenant_id') && mutated.every((path, i) => mutated.every((other, j) => i === j || !related(path, other)));
  const unreported = mutated.filter((path) => !result.errors.some((error) => related(error.path, path)));
  if (disjoint ? unreported.length > 0 : unreported.length === mutated.length) {
    throw new Error(`${label}: no error at ${unreported.join(', ')}; got ${JSON.stringify(result.errors).slice(0, 500)}`);
  }
}

function runMalformed(
  rng: SeededRandom,
  count: number,
  makeValid: (rng: SeededRandom) => Json,
  slotsOf: (body: Json) => Slot[],
  validate: (body: unknown) => ParseResult<unknown>,
  name: string,
): number {
  let mutations = 0;
  for (let index = 0; index < count; index += 1) {
    const label = `${name} #${index}`;
    if (rng.chance(0.04)) {
      // Not an object at all.
      const body = rng.pick<unknown>([null, 0, 'text', true, [], [makeValid(rng)], randomJson(rng, 4)]);
      if (typeof body === 'object' && body !== null && !Array.isArray(body)) continue;
      expectRejected(validateSafely(validate, body, label), body, [''], label);
      mutations += 1;
      continue;
    }
    const body = makeValid(rng);
    const mutated = mutate(rng, body, slotsOf);
    mutations += mutated.length;
    expectRejected(validateSafely(validate, body, label), body, mutated, label);
  }
  return mutations;
}

describe('validation fuzz (seeded)', () => {
  it(`rejects ${MALFORMED_TRIGGERS} mutated triggers with an error at a real, mutated location, never throwing`, () => {
    const rng = new SeededRandom(SEED);
    const mutations = runMalformed(rng, MALFORMED_TRIGGERS, randomValidTrigger, triggerSlots, validateTrigger, 'trigger');
    expect(mutations).toBeGreaterThanOrEqual(MALFORMED_TRIGGERS);
  });

  it(`rejects ${MALFORMED_EVENTS} mutated events the same way`, () => {
    const rng = new SeededRandom(SEED + 1);
    runMalformed(rng, MALFORMED_EVENTS, randomValidEvent, eventSlots, validateEvent, 'event');
  });

  it('never throws on arbitrary JSON and rejects anything without the required fields', () => {
    const rng = new SeededRandom(SEED + 2);
    for (let index = 0; index < 300; index += 1) {
      const body = randomJson(rng);
      expectRejected(validateSafely(validateTrigger, body, `junk trigger #${index}`), body, ['workflow', 'recipients', ''], `junk trigger #${index}`);
      expectRejected(validateSafely(validateEvent, body, `junk event #${index}`), body, ['distinct_id', 'event', ''], `junk event #${index}`);
    }
  });

  it(`accepts ${VALID_TRIGGERS} valid trigger variations, deterministically and without touching the input`, () => {
    const rng = new SeededRandom(SEED + 3);
    for (let index = 0; index < VALID_TRIGGERS; index += 1) {
      const body = randomValidTrigger(rng);
      const before = index % 20 === 0 ? structuredClone(body) : undefined;
      const result = validateTrigger(body);
      if (!result.ok) throw new Error(`trigger #${index} rejected: ${JSON.stringify(result.errors).slice(0, 500)}`);
      expect(result.value.recipients).toHaveLength((body.recipients as unknown[]).length);
      if (before !== undefined) {
        expect(body).toEqual(before);
        expect(validateTrigger(body)).toEqual(result);
      }
    }
  });

  it(`accepts ${VALID_EVENTS} valid event variations`, () => {
    const rng = new SeededRandom(SEED + 4);
    for (let index = 0; index < VALID_EVENTS; index += 1) {
      const body = randomValidEvent(rng);
      const result = validateEvent(body);
      if (!result.ok) throw new Error(`event #${index} rejected: ${JSON.stringify(result.errors).slice(0, 500)}`);
    }
  });

  it('bulk: fails whole exactly when there are 0 or more than 100 records, else one result per record', () => {
    const rng = new SeededRandom(SEED + 5);
    for (let index = 0; index < 60; index += 1) {
      const size = rng.pick([0, 1, rng.between(2, 99), 100, 101, rng.between(102, 300)]);
      const records = Array.from({ length: size }, () => rng.pick<unknown>([{ distinct_id: 'u', event: 'e' }, null, 3, {}]));
      const result = validateBulk(records, validateEvent);
      const valid = records.filter((record) => validateEvent(record).ok).length;
      if (size === 0 || size > 100) {
        expect(result).toEqual({ ok: false, errors: [expect.objectContaining({ path: '' })] });
      } else {
        expect(result.ok && [result.records.length, result.records.filter((record) => record.ok).length]).toEqual([size, valid]);
      }
    }
  });
});
