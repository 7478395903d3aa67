import { DeliveryState, IdentityResult, RouteVendor, VendorAnswer, decideDelivery, decideIdentity, vendorFailureReason } from './delivery-decider';

const now = new Date('2026-11-25T00:00:00.000Z');
const policy = { maxAttempts: 3, initialRetryDelayMs: 1_000, maxRetryDelayMs: 60_000 };
const emailAt = (attempts: number, sentBefore = 0): DeliveryState => ({ channel: 'email', attempts, sentBefore, policy });

const sentBy = (vendor: string, vendorMessageId?: string): IdentityResult => ({ ok: true, vendor, vendorMessageId });
const failedWith = (reason: string, retryable: boolean): IdentityResult => ({ ok: false, retryable, reason });

describe('decideDelivery', () => {
  it('names the vendor tried last on a retry report and on a final failure, so the message log shows who refused it', () => {
    const refused: IdentityResult = { ok: false, retryable: true, reason: 'smtp: connect ECONNREFUSED', vendor: 'email/smtp' };
    expect(decideDelivery({ type: 'sends_completed', results: [refused], jitter: 0 }, emailAt(1), now)).toMatchObject({ kind: 'retry', report: { status: 'retrying', vendor: 'email/smtp' } });
    expect(decideDelivery({ type: 'sends_completed', results: [refused], jitter: 0 }, emailAt(3), now)).toMatchObject({
      kind: 'record',
      final: { status: 'failed' },
      outcome: { status: 'delivery_failure', vendor: 'email/smtp', error: { message: 'smtp: connect ECONNREFUSED' } },
    });
  });

  it('records a delivery sent to every identity as sent_by_vendor, naming the last vendor that took it', () => {
    const decision = decideDelivery({ type: 'sends_completed', results: [sentBy('email/smtp', 'm-1'), sentBy('email/sendgrid', 'm-2')], jitter: 0.5 }, emailAt(1), now);
    expect(decision).toEqual({
      kind: 'record',
      final: { status: 'sent', vendor: 'email/sendgrid', vendorMessageId: 'm-2', error: undefined },
      outcome: { status: 'sent_by_vendor', vendor: 'email/sendgrid', vendor_message_id: 'm-2', attempts: 1 },
    });
  });

  it('records an inbox delivery as delivered: storing it is the delivery', () => {
    const decision = decideDelivery({ type: 'sends_completed', results: [sentBy('inbox/herald_inbox')], jitter: 0 }, { ...emailAt(1), channel: 'inbox' }, now);
    expect(decision).toMatchObject({ kind: 'record', outcome: { status: 'delivered', vendor: 'inbox/herald_inbox' } });
  });

  it('schedules a retryable failure with exponential backoff and equal jitter, reporting when it runs next', () => {
    const first = decideDelivery({ type: 'sends_completed', results: [failedWith('smtp: 451 busy', true)], jitter: 0 }, emailAt(1), now);
    const second = decideDelivery({ type: 'sends_completed', results: [failedWith('smtp: 451 busy', true)], jitter: 1 }, emailAt(2), now);
    expect(first).toEqual({
      kind: 'retry',
      delayMs: 500,
      reason: 'smtp: 451 busy',
      report: { status: 'retrying', attempts: 1, next_attempt_at: '2026-11-25T00:00:00.500Z', error: { message: 'smtp: 451 busy', retryable: true } },
    });
    expect(second).toMatchObject({ kind: 'retry', delayMs: 2_000, report: { attempts: 2, next_attempt_at: '2026-11-25T00:00:02.000Z' } });
  });

  it('makes a retryable failure final on the last attempt, saying it was retryable', () => {
    const decision = decideDelivery({ type: 'sends_completed', results: [failedWith('twilio answered 503', true)], jitter: 0.3 }, emailAt(3), now);
    expect(decision).toEqual({
      kind: 'record',
      final: { status: 'failed', error: 'twilio answered 503' },
      outcome: { status: 'delivery_failure', error: { message: 'twilio answered 503', retryable: true }, attempts: 3 },
    });
  });

  it('fails a permanent refusal at once, on the first attempt', () => {
    const decision = decideDelivery({ type: 'sends_completed', results: [failedWith('sendgrid answered 401', false)], jitter: 0 }, emailAt(1), now);
    expect(decision).toMatchObject({ kind: 'record', final: { status: 'failed' }, outcome: { error: { retryable: false } } });
  });

  it('retries while one identity failed retryably, and reports sent with the failure once attempts run out but another identity got it', () => {
    const results = [sentBy('email/smtp'), failedWith('smtp: 421 later', true)];
    expect(decideDelivery({ type: 'sends_completed', results, jitter: 0 }, emailAt(1), now)).toMatchObject({ kind: 'retry' });
    expect(decideDelivery({ type: 'sends_completed', results: [failedWith('smtp: 421 later', true)], jitter: 0 }, emailAt(3, 1), now)).toMatchObject({
      kind: 'record',
      final: { status: 'sent', vendor: undefined, error: 'smtp: 421 later' },
      outcome: { status: 'sent_by_vendor' },
    });
  });

  it('fails an unsendable delivery and an abandoned one whose vendors do not dedupe, never retrying them', () => {
    expect(decideDelivery({ type: 'unsendable', reason: 'no vendor is configured for the sms channel' }, emailAt(1), now)).toMatchObject({
      kind: 'record',
      final: { status: 'failed', error: 'no vendor is configured for the sms channel' },
      outcome: { error: { retryable: false } },
    });
    expect(decideDelivery({ type: 'abandoned_without_dedupe' }, emailAt(2), now)).toMatchObject({ kind: 'record', final: { status: 'failed', error: expect.stringMatching(/^outcome unknown/) } });
  });

  it('acknowledges a duplicate command without sending, resuming only a claim its dead owner left', () => {
    expect(decideDelivery({ type: 'command_redelivered', found: { kind: 'settled' } }, emailAt(1), now)).toEqual({ kind: 'acknowledge' });
    expect(decideDelivery({ type: 'command_redelivered', found: { kind: 'held', leaseLeftMs: 4_000 } }, emailAt(1), now)).toEqual({ kind: 'acknowledge', recheckInMs: 4_050 });
    expect(decideDelivery({ type: 'command_redelivered', found: { kind: 'taken' } }, emailAt(1), now)).toEqual({ kind: 'resume_abandoned' });
  });
});

describe('vendorFailureReason', () => {
  it('prefixes a reason with its vendor once: never `smtp: smtp: …` when the vendor named itself', () => {
    expect(vendorFailureReason('smtp', 'smtp: connect ECONNREFUSED 127.0.0.1:2525')).toBe('smtp: connect ECONNREFUSED 127.0.0.1:2525');
    expect(vendorFailureReason('sendgrid', 'sendgrid answered 500: oops')).toBe('sendgrid answered 500: oops');
    expect(vendorFailureReason('smtp', 'connect ECONNREFUSED')).toBe('smtp: connect ECONNREFUSED');
    // A reason that merely starts with the same letters is not the vendor naming itself.
    expect(vendorFailureReason('ses', 'session expired')).toBe('ses: session expired');
  });
});

describe('decideIdentity (the fallback order)', () => {
  const route: RouteVendor[] = [
    { channel: 'email', vendor: 'smtp' },
    { channel: 'email', vendor: 'sendgrid' },
    { channel: 'email', vendor: 'mailgun' },
  ];
  const refused = (reason: string, retryable: boolean): VendorAnswer => ({ ok: false, retryable, reason });

  it('offers the identity to the first vendor by priority, then to the next after each refusal, permanent or not', () => {
    expect(decideIdentity(route, [])).toEqual({ kind: 'call', route: 0 });
    expect(decideIdentity(route, [refused('connect ECONNREFUSED', true)])).toEqual({ kind: 'call', route: 1 });
    expect(decideIdentity(route, [refused('connect ECONNREFUSED', true), refused('sendgrid answered 400: bad address', false)])).toEqual({ kind: 'call', route: 2 });
  });

  it('settles on the vendor that took it, with its message id, calling none after it', () => {
    expect(decideIdentity(route, [refused('smtp: 421 later', true), { ok: true, vendorMessageId: 'sg-1' }])).toEqual({
      kind: 'settled',
      result: { ok: true, vendor: 'email/sendgrid', vendorMessageId: 'sg-1' },
    });
    expect(decideIdentity(route, [{ ok: true }])).toEqual({ kind: 'settled', result: { ok: true, vendor: 'email/smtp', vendorMessageId: undefined } });
  });

  it('settles a refusal by every vendor on each reason in order, naming the vendor tried last, retryable when any refusal was', () => {
    const answers = [refused('smtp: 421 later', true), refused('answered 401', false), refused('answered 400', false)];
    expect(decideIdentity(route, answers)).toEqual({
      kind: 'settled',
      result: { ok: false, retryable: true, reason: 'smtp: 421 later; sendgrid: answered 401; mailgun: answered 400', vendor: 'email/mailgun' },
    });
    expect(decideIdentity(route.slice(0, 1), [refused('answered 550', false)])).toMatchObject({ result: { ok: false, retryable: false } });
  });

  it('settles at once as a permanent failure when the route has no vendor', () => {
    expect(decideIdentity([], [])).toEqual({ kind: 'settled', result: { ok: false, retryable: false, reason: 'no vendor is configured for the channel' } });
  });
});
