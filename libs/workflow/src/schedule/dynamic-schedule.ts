import { DigestSchedule } from '../definition';
import { FieldReader } from '../definition/field-reader';
import { readSchedule } from '../definition/validate-schedule';
import { ValidationErrors } from '../definition/validation-errors';
import { Result, fail, ok, quote } from '../run/evaluate';

/**
 * The schedule a `dynamic` digest's jq expression gave (reference: `.digest_schedule`):
 * an object with the fields of interface 2.4, held to the same rules as a static
 * schedule, so that a bad value stops the run with every reason instead of closing the
 * digest at a surprising time.
 */
export function dynamicDigestSchedule(value: unknown): Result<DigestSchedule> {
  const errors = new ValidationErrors();
  const schedule = readSchedule(new FieldReader({ dynamic_schedule: value }, '', errors), 'dynamic_schedule');
  if (schedule === undefined || !errors.isEmpty) return fail(`the dynamic schedule ${quote(value)} is not a schedule: ${errors.all.join('; ')}`);
  return ok(schedule);
}
