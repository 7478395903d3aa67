import { JsonObject, isJsonObject } from './field-reader';

/**
 * A node's fields stand at its top level; a `properties` object (as some reference
 * examples write nodes) is merged into the node. A top-level field wins where it is
 * set (not null), so `{"duration": null, "properties": {"duration": "1h"}}` reads
 * as 1h. A `properties` that is not an object is left alone (an unknown field).
 */
export function mergeProperties(node: JsonObject): JsonObject {
  const { properties, ...topLevel } = node;
  if (!isJsonObject(properties)) return node;
  const merged: Record<string, unknown> = { ...properties };
  for (const [name, value] of Object.entries(topLevel)) {
    if (value !== undefined && value !== null) merged[name] = value;
  }
  return merged;
}
