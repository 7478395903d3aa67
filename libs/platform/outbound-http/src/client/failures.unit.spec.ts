import { BlockedAddressError, ConnectTimeoutError, failureFromError } from './failures';

describe('failureFromError', () => {
  const wrapped = (cause: unknown) => Object.assign(new Error('wrapper'), { code: 'ERR_WRAPPED', cause });

  it('finds a blocked address below wrappers', () => {
    const error = wrapped(new BlockedAddressError('localhost', { address: '127.0.0.1', category: 'loopback', allowed: false }));
    expect(failureFromError(error, 1000, false)).toEqual({
      kind: 'blocked_address',
      message: 'localhost resolves to 127.0.0.1 (loopback), which is not allowed',
      host: 'localhost',
      address: '127.0.0.1',
      category: 'loopback',
    });
  });

  it('tells a connect timeout from the total deadline', () => {
    expect(failureFromError(wrapped(new ConnectTimeoutError(50)), 1000, false)).toMatchObject({ kind: 'timeout', phase: 'connect' });
    expect(failureFromError(new Error('canceled'), 1000, true)).toMatchObject({ kind: 'timeout', phase: 'total' });
  });

  it('reports anything else as the network’s, with the deepest code and message', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(failureFromError(wrapped(refused), 1000, false)).toEqual({ kind: 'network', message: 'connect ECONNREFUSED 127.0.0.1:1', code: 'ECONNREFUSED' });
    expect(failureFromError('odd', 1000, false)).toEqual({ kind: 'network', message: 'odd' });
  });
});
