import * as contracts from '../index';
import { DEFINITION_CHANGED_TYPE, DEFINITION_CHANGED_VERSION } from './definition-changed.v1';
import { KNOWN_SCHEMA_VERSIONS, knownSchemaVersions, readsSchemaVersion, unknownSchemaVersion } from './schema-versions';

describe('schema versions consumers read', () => {
  it('lists every message type @herald/contracts defines, each with its current version', () => {
    const types = Object.entries(contracts)
      .filter(([name, value]) => name.endsWith('_TYPE') && typeof value === 'string')
      .map(([, value]) => value as string);
    expect(types.length).toBeGreaterThan(10);
    expect(Object.keys(KNOWN_SCHEMA_VERSIONS).sort()).toEqual([...new Set(types)].sort());
    // Where a type's constant pair is named alike, its current version is one it reads.
    for (const [name, value] of Object.entries(contracts)) {
      if (!name.endsWith('_TYPE') || typeof value !== 'string') continue;
      const version = (contracts as Record<string, unknown>)[name.replace(/_TYPE$/, '_VERSION')];
      if (typeof version === 'number') expect({ type: value, reads: KNOWN_SCHEMA_VERSIONS[value].includes(version) }).toEqual({ type: value, reads: true });
    }
  });

  it('accepts a known version and names the type, the version and the known ones for another', () => {
    expect(unknownSchemaVersion({ type: DEFINITION_CHANGED_TYPE, schema_version: DEFINITION_CHANGED_VERSION }, knownSchemaVersions(DEFINITION_CHANGED_TYPE))).toBeUndefined();
    expect(unknownSchemaVersion({ type: 'definition.changed', schema_version: 2 }, [1])).toEqual({
      path: 'schema_version',
      message: 'definition.changed version 2 is not known here (known: 1)',
    });
    expect(unknownSchemaVersion({ type: 'x.y', schema_version: 3 }, [1, 2])?.message).toBe('x.y version 3 is not known here (known: 1, 2)');
    expect(unknownSchemaVersion({ type: 'x.y', schema_version: 1 }, [])?.message).toBe('x.y version 1 is not known here (known: none)');
  });

  it('refuses to guess the versions of a type it has no entry for', () => {
    expect(() => knownSchemaVersions('greeting')).toThrow('message type greeting has no entry in KNOWN_SCHEMA_VERSIONS');
    // Own entries only, not Object.prototype's members.
    expect(() => knownSchemaVersions('constructor')).toThrow('no entry');
  });

  it('tells skipping consumers whether they can read an envelope', () => {
    expect(readsSchemaVersion({ type: DEFINITION_CHANGED_TYPE, schema_version: DEFINITION_CHANGED_VERSION })).toBe(true);
    expect(readsSchemaVersion({ type: DEFINITION_CHANGED_TYPE, schema_version: DEFINITION_CHANGED_VERSION + 1 })).toBe(false);
    expect(readsSchemaVersion({ type: 'greeting', schema_version: 1 })).toBe(false);
    expect(readsSchemaVersion({ type: 'toString', schema_version: 1 })).toBe(false);
  });
});
