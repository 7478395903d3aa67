import { NodeType } from './definition-enums';
import { FieldReader } from './field-reader';
import { NodeBase } from './workflow-definition';

/** The fields every node has: name (required, not blank) and description. */
export function readNodeBase<T extends NodeType>(fields: FieldReader, node_type: T): NodeBase<T> | undefined {
  const name = fields.string('name', { required: true });
  const description = fields.string('description');
  return name === undefined ? undefined : { node_type, name, description };
}
