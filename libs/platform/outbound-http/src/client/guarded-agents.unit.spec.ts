import { LookupAddress, LookupOptions } from 'node:dns';
import { parseCidrList } from '../address/cidr';
import { BlockedAddressError } from './failures';
import { guardedLookup } from './guarded-agents';

const answers: LookupAddress[] = [
  { address: '10.0.0.1', family: 4 },
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** Calls the lookup as net.connect does and hands back what it was given. */
function lookup(allow: string[], options: LookupOptions): Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }> {
  const look = guardedLookup({ allow: parseCidrList(allow), resolve: async () => answers, connectTimeoutMs: 1_000 });
  return new Promise((resolve) => look('svc.example', options, (error, address, family) => resolve({ error, address, family })));
}

describe('guardedLookup', () => {
  it('hands net.connect (autoSelectFamily) only the allowed addresses', async () => {
    expect(await lookup(['127.0.0.0/8', '::1/128'], { all: true })).toEqual({
      error: null,
      address: [answers[1], answers[2]],
      family: undefined,
    });
  });

  it('answers a single-address lookup with the first allowed address', async () => {
    expect(await lookup(['::1/128'], {})).toEqual({ error: null, address: '::1', family: 6 });
  });

  it('honours the family asked for', async () => {
    expect(await lookup(['127.0.0.0/8', '::1/128'], { family: 6 })).toEqual({ error: null, address: '::1', family: 6 });
    expect(await lookup(['127.0.0.0/8', '::1/128'], { family: 'IPv4', all: true })).toMatchObject({ address: [answers[1]] });
  });

  it('fails with the first refused address when none is allowed', async () => {
    const { error } = await lookup([], { all: true });
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect((error as BlockedAddressError).verdict).toEqual({ address: '10.0.0.1', category: 'private', allowed: false });
  });
});
