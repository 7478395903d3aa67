import { OFFSET_TYPES, OFFSET_VALUE_TYPES } from './definition-enums';
import { readDuration, readJq } from './expression-fields';
import { FieldReader } from './field-reader';
import { DefinitionValidationContext } from './validation-context';
import { RelativeTo } from './workflow-definition';

/**
 * The `relative_to` object of delay, batch and wait-until delay nodes. All four fields
 * are required: pivot_expr (jq), offset_type, offset_value_type, and offset_value (a
 * fixed duration, zero allowed, or jq, as offset_value_type says).
 */
export function readRelativeTo(owner: FieldReader, name: string, context: DefinitionValidationContext): RelativeTo | undefined {
  const fields = owner.object(name, true);
  if (fields === undefined) return undefined;
  const pivot_expr = readJq(fields, 'pivot_expr', context, { required: true });
  const offset_type = fields.oneOf('offset_type', OFFSET_TYPES, true);
  const offset_value_type = fields.oneOf('offset_value_type', OFFSET_VALUE_TYPES, true);
  const offset_value =
    offset_value_type === 'dynamic'
      ? readJq(fields, 'offset_value', context, { required: true })
      : offset_value_type === 'fixed'
        ? readDuration(fields, 'offset_value', { required: true })
        : fields.string('offset_value', { required: true });
  if (pivot_expr === undefined || offset_type === undefined || offset_value_type === undefined || offset_value === undefined) return undefined;
  return { pivot_expr, offset_type, offset_value_type, offset_value };
}
