import { Client } from 'pg';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { RecordingServer } from '../testing/recording-server';
import { DispatchTestApp, deliveryCommand, startDispatchTestApp } from '../testing/dispatch-test-app';

const TWILIO = { account_sid: `AC${'c'.repeat(32)}`, auth_token: 'tw-token', from: '+14155550100' };
/** Short leases, so that a lease that is not renewed runs out well within a vendor call of the test. */
const LEASE_MS = 1_000;

type Command = ReturnType<typeof deliveryCommand>;

describe.each(runModeTargets())('delivery claim leases ($name)', ({ database, bus }) => {
  let dispatch: DispatchTestApp;
  let twilio: RecordingServer;

  beforeAll(async () => {
    [dispatch, twilio] = await Promise.all([
      startDispatchTestApp(database, bus, { leaseMs: LEASE_MS, leaseRenewIntervalMs: 200, pollIntervalMs: 50 }),
      RecordingServer.start({ status: 201, body: { sid: 'SM-lease' } }),
    ]);
    await dispatch.announceVendor('sms', 'twilio', { priority: 1, baseUrl: twilio.url, credentials: TWILIO });
  });

  afterAll(async () => {
    await dispatch?.close();
    await twilio?.close();
  });

  /** Stages the claim a dispatcher that then died left behind: `sending`, owned by `owner`, its lease ending `leaseSql`. */
  const stageClaim = async (command: Command, owner: string, leaseSql: string): Promise<Date> => {
    const [row] = await dispatch.sql(
      `INSERT INTO dispatch.deliveries (delivery_id, workspace_id, channel, message_key, command, status, attempts, claimed_at, owner, lease_expires_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, 'sending', 1, now(), $6, ${leaseSql}) RETURNING lease_expires_at`,
      [command.delivery_id, dispatch.workspaceId, command.channel, `${dispatch.workspaceId}:${command.recipient.distinct_id ?? ''}`, JSON.stringify(command), owner],
    );
    return row.lease_expires_at as Date;
  };
  const claimOf = async (deliveryId: string): Promise<{ status: string; owner: string; lease_expires_at: Date | null }> => {
    const [row] = await dispatch.sql(`SELECT status, owner, lease_expires_at FROM dispatch.deliveries WHERE delivery_id = $1`, [deliveryId]);
    return row as { status: string; owner: string; lease_expires_at: Date | null };
  };
  const inboxOf = async (distinctId: string): Promise<unknown[]> => ((await dispatch.call('GET', `v1/user/${distinctId}/inbox/`)).body as { results: unknown[] }).results;
  const inboxCommand = (distinctId: string, body: string): Command => deliveryCommand('inbox', { body }, ['x'], { recipient: { kind: 'user', distinct_id: distinctId } });

  it('renews the lease of a slow vendor call while its owner lives: the sweep never takes it over', async () => {
    const command = deliveryCommand('sms', { text: 'slow vendor' }, ['+4915112345678']);
    const before = twilio.requests.length;
    // The vendor answers after three leases: only renewals keep the claim this dispatcher's.
    twilio.respond({ status: 201, body: { sid: 'SM-slow' }, delayMs: 3 * LEASE_MS });
    await dispatch.publishCommand(command);
    await twilio.received(before + 1);

    const claimed = await claimOf(command.delivery_id);
    expect(claimed).toMatchObject({ status: 'sending', owner: expect.stringMatching(/^.+\/\d+\/[0-9a-f]{8}$/) });
    await expectEventually(async () => {
      const renewed = await claimOf(command.delivery_id);
      expect(renewed.owner).toBe(claimed.owner);
      expect((renewed.lease_expires_at as Date).getTime()).toBeGreaterThan((claimed.lease_expires_at as Date).getTime() + LEASE_MS / 2);
    });

    expect((await dispatch.outcomeOf(command.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor: 'sms/twilio', attempts: 1 });
    expect(twilio.requests.length).toBe(before + 1);
    expect(await claimOf(command.delivery_id)).toMatchObject({ status: 'sent', owner: claimed.owner, lease_expires_at: null });
  });

  it('resumes on redelivery, at once, the claim of an owner that is gone, and leaves one whose owner lives', async () => {
    const liveOwner = 'other-host/4242/0000beef';
    // A live dispatcher holds its owner lock for as long as its session lasts.
    const session = new Client({ connectionString: dispatch.databaseUrl });
    await session.connect();
    let ownerAlive = true;
    try {
      await session.query(`SELECT pg_advisory_lock(hashtext('herald:dispatch-owner'), hashtext($1))`, [liveOwner]);
      const held = inboxCommand('lease-user', 'held elsewhere');
      // Leases an hour long: nothing but the owner's liveness decides here.
      await stageClaim(held, liveOwner, `now() + interval '1 hour'`);
      await dispatch.publishCommand(held);
      // Same key, same partition: once the next command's outcome is out, the redelivery was handled.
      const marker = inboxCommand('lease-user', 'marker');
      await dispatch.publishCommand(marker);
      await dispatch.outcomeOf(marker.delivery_id);
      expect(dispatch.outcomes.filter((o) => o.envelope.payload.delivery_id === held.delivery_id)).toEqual([]);
      expect(await claimOf(held.delivery_id)).toMatchObject({ status: 'sending', owner: liveOwner });

      // The owner dies (its session ends; the embedded mode shares one session, so unlock explicitly).
      await session.query(`SELECT pg_advisory_unlock(hashtext('herald:dispatch-owner'), hashtext($1))`, [liveOwner]);
      await session.end();
      ownerAlive = false;
      await dispatch.publishCommand(held);
      expect((await dispatch.outcomeOf(held.delivery_id)).envelope.payload).toMatchObject({ status: 'delivered', vendor: 'inbox/herald_inbox' });
      expect((await claimOf(held.delivery_id)).owner).not.toBe(liveOwner);
      expect((await inboxOf('lease-user')).length).toBe(2);
    } finally {
      if (ownerAlive) await session.end();
    }

    // A vendor that does not dedupe: the gone owner's call may have reached it, so it is not repeated.
    const sms = deliveryCommand('sms', { text: 'in doubt after a crash' }, ['+4915112345678']);
    const before = twilio.requests.length;
    await stageClaim(sms, 'crashed-host/1/0000dead', `now() + interval '1 hour'`);
    await dispatch.publishCommand(sms);
    const failure = (await dispatch.outcomeOf(sms.delivery_id)).envelope.payload;
    expect(failure).toMatchObject({ status: 'delivery_failure', error: { retryable: false } });
    expect(failure.error?.message).toMatch(/^outcome unknown/);
    expect(twilio.requests.length).toBe(before);
  });

  it('keeps renewing the leases of a swept batch while its claims wait their turn behind a slow vendor call', async () => {
    const resend = await RecordingServer.start({ status: 200, body: { id: 're-1' } });
    try {
      await dispatch.announceVendor('email', 'resend', { baseUrl: resend.url, credentials: { api_key: 're_key' }, settings: { from: 'noreply@acme.test' } });
      // Two claims of a dead owner, swept in one batch and attempted one after the other, each vendor call three leases long.
      resend.respond({ status: 200, body: { id: 're-slow-1' }, delayMs: 3 * LEASE_MS }, { status: 200, body: { id: 're-slow-2' }, delayMs: 3 * LEASE_MS });
      const batch = ['first@example.com', 'second@example.com'].map((address) => deliveryCommand('email', { subject: 'slow', text: 'x' }, [address]));
      // In one statement, so that one sweep finds both.
      await dispatch.sql(
        `INSERT INTO dispatch.deliveries (delivery_id, workspace_id, channel, message_key, command, status, attempts, claimed_at, owner, lease_expires_at)
         SELECT c->>'delivery_id', $1, 'email', $2, c, 'sending', 1, now(), 'crashed-host/3/0000dead', now() - interval '1 second' FROM jsonb_array_elements($3::jsonb) c`,
        [dispatch.workspaceId, `${dispatch.workspaceId}:user-1`, JSON.stringify(batch)],
      );
      await resend.received(1);
      const waiting = batch.find((command) => !resend.requests[0].body.includes(command.destination.identities[0] as string)) as Command;
      const swept = await claimOf(waiting.delivery_id);
      expect(swept).toMatchObject({ status: 'sending', owner: expect.not.stringContaining('crashed-host') });
      // Still waiting behind the slow call, a lease later than the one it was swept with: renewed, so no other replica takes it.
      await expectEventually(async () => {
        const renewed = await claimOf(waiting.delivery_id);
        expect(renewed).toMatchObject({ status: 'sending', owner: swept.owner });
        expect(resend.requests).toHaveLength(1);
        expect((renewed.lease_expires_at as Date).getTime()).toBeGreaterThan((swept.lease_expires_at as Date).getTime() + LEASE_MS / 2);
      });
      for (const command of batch) expect((await dispatch.outcomeOf(command.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor: 'email/resend' });
      expect(resend.requests).toHaveLength(2);
    } finally {
      await resend.close();
    }
  });

  it('sweeps the claim of a dead owner whose command does not come back, within seconds of its lease running out', async () => {
    const command = inboxCommand('swept-user', 'swept');
    // As a dispatcher leaves it when it dies just after renewing: the lease still runs two seconds.
    const leaseEnd = await stageClaim(command, 'crashed-host/2/0000dead', `now() + interval '2 seconds'`);
    const outcome = await dispatch.outcomeOf(command.delivery_id);
    expect(outcome.envelope.payload).toMatchObject({ status: 'delivered', attempts: 1 });
    const resolvedAt = Date.parse(outcome.envelope.payload.at);
    // Not before the lease ran out (the database's clock and this process's are the same host's), and promptly after.
    expect(resolvedAt).toBeGreaterThanOrEqual(leaseEnd.getTime());
    expect(resolvedAt - leaseEnd.getTime()).toBeLessThan(5_000);
    expect(await inboxOf('swept-user')).toHaveLength(1);
  });

  // Last: it stops the service.
  it('finishes a vendor call in flight when the service stops, before the vendor clients close', async () => {
    const command = deliveryCommand('sms', { text: 'in flight at shutdown' }, ['+4915112345678']);
    const before = twilio.requests.length;
    twilio.respond({ status: 201, body: { sid: 'SM-shutdown' }, delayMs: 500 });
    await dispatch.publishCommand(command);
    await twilio.received(before + 1);
    await dispatch.stop();
    // Recorded as sent by the attempt itself: not failed, not scheduled for a retry that would send it again.
    expect(await claimOf(command.delivery_id)).toMatchObject({ status: 'sent' });
    expect(twilio.requests.length).toBe(before + 1);
  });
});
