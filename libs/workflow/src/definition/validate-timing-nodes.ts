import { assertNever } from '@herald/decider';
import { BATCH_MODES, DELAY_TYPES, RETAIN_ORDERS, SCHEDULE_TYPES, WINDOW_TYPES } from './definition-enums';
import { readDuration, readJq } from './expression-fields';
import { FieldReader } from './field-reader';
import { readNodeBase } from './node-base';
import { readSchedule } from './validate-schedule';
import { readRelativeTo } from './validate-relative-to';
import { DefinitionValidationContext } from './validation-context';
import { BatchNode, DelayNode, DigestNode } from './workflow-definition';

/**
 * Digest, delay and batch nodes. Each reads only the fields its variant (schedule_type,
 * delay_type, window_type) uses: a field left over from another variant is ignored.
 */

export function validateDigestNode(fields: FieldReader, context: DefinitionValidationContext): DigestNode | undefined {
  const base = readNodeBase(fields, 'digest');
  const common = {
    retain_count: fields.integer('retain_count', { min: 1, max: 100 }),
    retain_order: fields.oneOf('retain_order', RETAIN_ORDERS),
    trigger_min_count: fields.integer('trigger_min_count', { min: 1 }),
  };
  const schedule_type = fields.oneOf('schedule_type', SCHEDULE_TYPES, true);
  switch (schedule_type) {
    case 'static': {
      const schedule = readSchedule(fields, 'schedule');
      return base && schedule && { ...base, ...common, schedule_type, schedule };
    }
    case 'dynamic': {
      const dynamic_schedule_expr = readJq(fields, 'dynamic_schedule_expr', context, { required: true });
      return base && dynamic_schedule_expr !== undefined ? { ...base, ...common, schedule_type, dynamic_schedule_expr } : undefined;
    }
    case 'category_digest_schedule':
      return base && { ...base, ...common, schedule_type };
    case undefined:
      return undefined;
    default:
      return assertNever(schedule_type);
  }
}

export function validateDelayNode(fields: FieldReader, context: DefinitionValidationContext): DelayNode | undefined {
  const base = readNodeBase(fields, 'delay');
  const delay_type = fields.oneOf('delay_type', DELAY_TYPES, true);
  switch (delay_type) {
    case 'fixed': {
      const duration = readDuration(fields, 'duration', { required: true });
      return base && duration !== undefined ? { ...base, delay_type, duration } : undefined;
    }
    case 'dynamic': {
      const duration = readJq(fields, 'duration', context, { required: true });
      return base && duration !== undefined ? { ...base, delay_type, duration } : undefined;
    }
    case 'relative_to': {
      const relative_to = readRelativeTo(fields, 'relative_to', context);
      return base && relative_to && { ...base, delay_type, relative_to };
    }
    case undefined:
      return undefined;
    default:
      return assertNever(delay_type);
  }
}

export function validateBatchNode(fields: FieldReader, context: DefinitionValidationContext): BatchNode | undefined {
  const base = readNodeBase(fields, 'batch');
  const mode = fields.oneOf('mode', BATCH_MODES, true);
  const common = {
    retain_count: fields.integer('retain_count', { min: 1, max: 100 }),
    retain_order: fields.oneOf('retain_order', RETAIN_ORDERS),
    batch_key: readJq(fields, 'batch_key', context),
  };
  const window_type = fields.oneOf('window_type', WINDOW_TYPES, true);
  const head = base && mode && { ...base, mode, ...common };
  switch (window_type) {
    case 'fixed': {
      const fixed_window = readDuration(fields, 'fixed_window', { required: true, positive: true });
      return head && fixed_window !== undefined ? { ...head, window_type, fixed_window } : undefined;
    }
    case 'dynamic': {
      const dynamic_window_expr = readJq(fields, 'dynamic_window_expr', context, { required: true });
      return head && dynamic_window_expr !== undefined ? { ...head, window_type, dynamic_window_expr } : undefined;
    }
    case 'relative_to': {
      const relative_to = readRelativeTo(fields, 'relative_to', context);
      return head && relative_to && { ...head, window_type, relative_to };
    }
    case undefined:
      return undefined;
    default:
      return assertNever(window_type);
  }
}
