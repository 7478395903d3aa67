import { MessageTooLargeError, UnstorableMessageError, classifyFailure } from './failure-classification';

/** An error shaped like pg's DatabaseError. */
function pgError(code: string, message = 'boom'): Error {
  return Object.assign(new Error(message), { name: 'error', code, severity: 'ERROR' });
}

/** TypeORM's QueryFailedError copies the driver error's fields and keeps it as `driverError`. */
function queryFailed(driverError: Error): Error {
  return Object.assign(new Error(driverError.message), { name: 'QueryFailedError', driverError, code: (driverError as { code?: string }).code });
}

function kafkaProtocolError(type: string, retriable: boolean): Error {
  return Object.assign(new Error(type), { name: 'KafkaJSProtocolError', type, retriable });
}

describe('classifyFailure', () => {
  it.each([
    ['NUL in text (22021)', pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00')],
    ['NUL in jsonb (22P05)', pgError('22P05', 'unsupported Unicode escape sequence')],
    ['string too long (22001)', pgError('22001')],
    ['program limit (54000)', pgError('54000', 'index row requires 9000 bytes')],
    ['a data exception through TypeORM', queryFailed(pgError('22021'))],
    ['the broker refusing a record for its size', kafkaProtocolError('MESSAGE_TOO_LARGE', false)],
    ['a record batch too large', kafkaProtocolError('RECORD_LIST_TOO_LARGE', false)],
    ['a message over the bus limit', new MessageTooLargeError('t', 2_000_000, 1_048_588)],
    ['a NUL in a key the bus journal would store', new UnstorableMessageError('t', 'key')],
    ['unparseable JSON', (() => { try { JSON.parse('{'); } catch (e) { return e; } })()],
    ['a validation error', Object.assign(new Error('invalid'), { name: 'HeraldError', code: 'validation_error' })],
  ])('%s is permanent', (_, error) => {
    expect(classifyFailure(error).kind).toBe('permanent');
  });

  it.each([
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['connection reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['pg-pool timing out', new Error('timeout exceeded when trying to connect')],
    ['a connection dropped mid-query', new Error('Connection terminated unexpectedly')],
    ['Postgres shutting down (57P01)', pgError('57P01', 'terminating connection due to administrator command')],
    ['Postgres starting (57P03)', pgError('57P03', 'the database system is starting up')],
    ['too many connections (53300)', pgError('53300')],
    ['a connection failure (08006)', pgError('08006')],
    ['a serialization failure (40001)', queryFailed(pgError('40001'))],
    ['a deadlock (40P01)', pgError('40P01')],
    ['the broker unreachable', Object.assign(new Error('Connection error: connect ECONNREFUSED'), { name: 'KafkaJSConnectionError' })],
    [
      'kafkajs giving up on an unreachable broker',
      Object.assign(new Error('retries exceeded'), {
        name: 'KafkaJSNumberOfRetriesExceeded',
        cause: Object.assign(new Error('Connection timeout'), { name: 'KafkaJSConnectionError' }),
      }),
    ],
    ['a leader moving', kafkaProtocolError('NOT_LEADER_OR_FOLLOWER', true)],
    ['Herald unavailable', Object.assign(new Error('unavailable'), { name: 'HeraldError', code: 'unavailable' })],
    ['Herald saturated (a RetryLaterError)', Object.assign(new Error('busy'), { name: 'RetryLaterError', code: 'rate_limited' })],
    ['a lost stream race', Object.assign(new Error('conflict'), { name: 'StreamConflictError' })],
  ])('%s is transient', (_, error) => {
    expect(classifyFailure(error).kind).toBe('transient');
  });

  it.each([
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a unique violation', pgError('23505')],
    ['a statement timeout (57014), which the message can cause', pgError('57014', 'canceling statement due to statement timeout')],
    ['an undefined column (a deploy gone wrong)', pgError('42703')],
    ['a string thrown', 'oops'],
    ['another broker refusal', kafkaProtocolError('TOPIC_AUTHORIZATION_FAILED', false)],
  ])('%s is unknown (retried a bounded number of times)', (_, error) => {
    expect(classifyFailure(error).kind).toBe('unknown');
  });

  it('names why, for logs and dead letters', () => {
    expect(classifyFailure(queryFailed(pgError('22021'))).because).toBe('SQLSTATE 22021 (data exception)');
    expect(classifyFailure(kafkaProtocolError('MESSAGE_TOO_LARGE', false)).because).toBe('MESSAGE_TOO_LARGE');
  });

  it('does not loop on an error that is its own cause', () => {
    const error = new Error('self') as Error & { cause?: unknown };
    error.cause = error;
    expect(classifyFailure(error).kind).toBe('unknown');
  });
});
