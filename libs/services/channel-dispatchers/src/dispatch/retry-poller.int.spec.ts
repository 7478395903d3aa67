import { runModeTargets } from '@herald/runtime';
import { RecordingServer } from '../testing/recording-server';
import { DispatchTestApp, deliveryCommand, startDispatchTestApp } from '../testing/dispatch-test-app';
import { DeliveryClaims } from './delivery-claims';

const TWILIO = { account_sid: `AC${'d'.repeat(32)}`, auth_token: 'tw-token', from: '+14155550100' };

describe.each(runModeTargets())('retry poller ($name)', ({ database, bus }) => {
  let dispatch: DispatchTestApp;
  let twilio: RecordingServer;

  beforeAll(async () => {
    [dispatch, twilio] = await Promise.all([
      // A safety poll longer than the test: only the ledger's wake-ups can run the retries.
      startDispatchTestApp(database, bus, { pollIntervalMs: 10 * 60_000, initialRetryDelayMs: 400, maxRetryDelayMs: 400, maxAttempts: 3 }),
      RecordingServer.start({ status: 201, body: { sid: 'SM-poller' } }),
    ]);
    await dispatch.announceVendor('sms', 'twilio', { priority: 1, baseUrl: twilio.url, credentials: TWILIO });
  });

  afterAll(async () => {
    await dispatch?.close();
    await twilio?.close();
  });

  it('sleeps until each scheduled retry is due, woken by the retry it was told of: a round per retry, no polling in between', async () => {
    const ledger = dispatch.app.get(DeliveryClaims);
    // Idle: nothing scheduled or held, so the poller has nothing to wake for (not "due now").
    expect(await ledger.nextDueInMs()).toBeNull();
    const rounds = jest.spyOn(ledger, 'claimDue');
    const command = deliveryCommand('sms', { text: 'wake me' }, ['+4915112345678']);
    twilio.respond({ status: 503 }, { status: 503 }, { status: 503 });
    await dispatch.publishCommand(command);
    const failure = (await dispatch.outcomeOf(command.delivery_id)).envelope.payload;
    expect(failure).toMatchObject({ status: 'delivery_failure', attempts: 3, error: { retryable: true } });
    // Two retries: one round when each fell due (a second only if the timer beat the database's clock by a hair).
    expect(rounds.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(rounds.mock.calls.length).toBeLessThanOrEqual(4);
    rounds.mockRestore();
    expect(await ledger.nextDueInMs()).toBeNull();
  });
});
