import { LocalSmtpServer } from '../testing/local-smtp-server';
import { RecordingServer } from '../testing/recording-server';
import { DispatchTestApp, deliveryCommand, startDispatchTestApp } from '../testing/dispatch-test-app';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';

const TWILIO = { account_sid: `AC${'b'.repeat(32)}`, auth_token: 'tw-token', from: '+14155550100' };

describe.each(runModeTargets())('channel-dispatchers ($name)', ({ database, bus }) => {
  let dispatch: DispatchTestApp;
  let smtp: LocalSmtpServer;
  let twilio: RecordingServer;
  let sendgrid: RecordingServer;

  beforeAll(async () => {
    [dispatch, smtp, twilio, sendgrid] = await Promise.all([
      startDispatchTestApp(database, bus),
      LocalSmtpServer.start({ username: 'mailer', password: 'secret' }),
      RecordingServer.start({ status: 201, body: { sid: 'SM-default' } }),
      RecordingServer.start({ status: 401, body: { errors: [{ message: 'invalid api key' }] } }),
    ]);
    await dispatch.announceVendor('email', 'smtp', {
      priority: 2,
      credentials: { host: '127.0.0.1', port: smtp.port, secure: false, username: 'mailer', password: 'secret', from: 'Acme <noreply@acme.test>' },
    });
    await dispatch.announceVendor('sms', 'twilio', { priority: 1, baseUrl: twilio.url, credentials: TWILIO });
  });

  afterAll(async () => {
    await dispatch?.close();
    await Promise.all([smtp?.close(), twilio?.close(), sendgrid?.close()]);
  });

  it('renders an email command and delivers it to the SMTP server, reporting sent_by_vendor keyed like the command', async () => {
    const command = deliveryCommand('email', { subject: 'Welcome {{name}}', html: '<p>Hi {{name}}</p>' }, ['ada@example.com']);
    const before = smtp.mails.length;
    await dispatch.publishCommand(command);
    const outcome = await dispatch.outcomeOf(command.delivery_id);
    expect(outcome.key).toBe(`${dispatch.workspaceId}:user-1`);
    expect(outcome.envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor: 'email/smtp', run_id: command.run_id, attempts: 1 });
    await smtp.received(before + 1);
    expect(smtp.mails[before].to).toEqual(['ada@example.com']);
    expect(smtp.mails[before].raw).toContain('Subject: Welcome Ada');
  });

  it('attaches the command\'s files: a URL one fetched through the outbound rule, a failing one skipped only when ignore_if_error', async () => {
    const files = await RecordingServer.start({ status: 404, body: 'gone' });
    try {
      files.respond({ status: 200, body: '%PDF-1.4 invoice', headers: { 'content-type': 'application/pdf' } });
      const attachments = [
        { kind: 'url' as const, url: `${files.url}/invoice.pdf`, ignore_if_error: false },
        { kind: 'url' as const, url: `${files.url}/missing.png`, ignore_if_error: true },
      ];
      const command = deliveryCommand('email', { subject: 'Invoice {{name}}', text: 'attached' }, ['ada@example.com'], { attachments });
      const before = smtp.mails.length;
      await dispatch.publishCommand(command);
      expect((await dispatch.outcomeOf(command.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor: 'email/smtp' });
      await smtp.received(before + 1);
      const raw = smtp.mails[before].raw;
      expect(raw).toMatch(/Content-Type: application\/pdf; name=invoice\.pdf\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=invoice\.pdf/);
      expect(raw).toContain(Buffer.from('%PDF-1.4 invoice').toString('base64'));
      expect(raw).not.toContain('missing.png');

      const required = deliveryCommand('email', { subject: 'x', text: 'x' }, ['ada@example.com'], { attachments: [{ ...attachments[1], ignore_if_error: false }] });
      await dispatch.publishCommand(required);
      const failure = (await dispatch.outcomeOf(required.delivery_id)).envelope.payload;
      expect(failure).toMatchObject({ status: 'delivery_failure', error: { retryable: false } });
      expect(failure.error?.message).toBe(`attachment 1 (${files.url}/missing.png) could not be loaded: HTTP 404`);
    } finally {
      await files.close();
    }
  });

  it('claims a command that loads attachments `queued` until they are loaded: a crash meanwhile repeats it as new', async () => {
    const statusOf = async (deliveryId: string): Promise<unknown> => (await dispatch.sql('SELECT status FROM dispatch.deliveries WHERE delivery_id = $1', [deliveryId]))[0]?.status;
    const files = await RecordingServer.start({ status: 200, body: '%PDF-1.4 slow', headers: { 'content-type': 'application/pdf' }, delayMs: 1_500 });
    try {
      const command = deliveryCommand('email', { subject: 'Slow {{name}}', text: 'attached' }, ['ada@example.com'], {
        attachments: [{ kind: 'url' as const, url: `${files.url}/slow.pdf`, ignore_if_error: false }],
      });
      await dispatch.publishCommand(command);
      await files.received(1);
      // No vendor was called yet: if this dispatcher died now, the claim would be attempted again as new, not failed as in doubt.
      expect(await statusOf(command.delivery_id)).toBe('queued');
      expect((await dispatch.outcomeOf(command.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor: 'email/smtp' });
      expect(await statusOf(command.delivery_id)).toBe('sent');
    } finally {
      await files.close();
    }
  });

  it('sends a command consumed three times once', async () => {
    const command = deliveryCommand('sms', { text: 'Code {{name}}' }, ['+4915112345678']);
    const before = twilio.requests.length;
    await dispatch.publishCommand(command);
    await dispatch.publishCommand(command);
    await dispatch.publishCommand(command);
    // Same key, same partition: once the next command's outcome is out, all three copies were consumed.
    const sentinel = deliveryCommand('sms', { text: 'after' }, ['+4915112345678']);
    await dispatch.publishCommand(sentinel);
    await dispatch.outcomeOf(sentinel.delivery_id);
    await dispatch.outcomeOf(command.delivery_id);
    expect(twilio.requests.slice(before).filter((request) => request.body.includes('Body=Code+Ada'))).toHaveLength(1);
  });

  it('retries a retryable failure after a backoff, and reports a failure once attempts are exhausted', async () => {
    const command = deliveryCommand('sms', { text: 'retry me' }, ['+4915112345678']);
    twilio.respond({ status: 503 });
    await dispatch.publishCommand(command);
    expect((await dispatch.outcomeOf(command.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor: 'sms/twilio', attempts: 2 });

    const doomed = deliveryCommand('sms', { text: 'doomed' }, ['+4915112345678']);
    twilio.respond({ status: 503 }, { status: 503 }, { status: 503 });
    await dispatch.publishCommand(doomed);
    const failure = (await dispatch.outcomeOf(doomed.delivery_id)).envelope.payload;
    expect(failure).toMatchObject({ status: 'delivery_failure', attempts: 3, error: { retryable: true } });
    expect(failure.error?.message).toContain('503');
  });

  it('retries a failed delivery on request (POST /v1/message/{id}/retry/) once its vendor is fixed: only a failed one, only with the workspace\'s API key', async () => {
    const command = deliveryCommand('sms', { text: 'after the fix' }, ['+4915112345678']);
    twilio.respond({ status: 400, body: { message: 'The From number is not a Twilio number' } });
    await dispatch.publishCommand(command);
    expect((await dispatch.outcomeOf(command.delivery_id)).envelope.payload).toMatchObject({ status: 'delivery_failure', attempts: 1, error: { retryable: false } });
    // The vendor answers again (fixed); the retry sends it and reports a second outcome, counting the attempt.
    const before = twilio.requests.length;
    expect(await dispatch.call('POST', `v1/message/${command.delivery_id}/retry/`)).toEqual({ status: 202, body: { message_id: command.delivery_id, status: 'retry_scheduled' } });
    await expectEventually(() =>
      expect(dispatch.outcomes.filter((outcome) => outcome.envelope.payload.delivery_id === command.delivery_id).map((outcome) => outcome.envelope.payload)).toEqual([
        expect.objectContaining({ status: 'delivery_failure' }),
        expect.objectContaining({ status: 'sent_by_vendor', vendor: 'sms/twilio', attempts: 2 }),
      ]),
    );
    expect(twilio.requests.slice(before).filter((request) => request.body.includes('after+the+fix'))).toHaveLength(1);
    // Sent now: nothing to retry; an id no delivery has: not found.
    expect(await dispatch.call('POST', `v1/message/${command.delivery_id}/retry/`)).toMatchObject({ status: 409, body: { message: expect.stringContaining('is sent, not failed') } });
    expect(await dispatch.call('POST', 'v1/message/no-such-delivery/retry/')).toMatchObject({ status: 404 });
    // The console calls it from its own origin: the preflight, and a refusal it can read.
    const preflight = await fetch(`${dispatch.app.url}v1/message/${command.delivery_id}/retry/`, {
      method: 'OPTIONS',
      headers: { origin: 'https://console.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin'), preflight.headers.get('access-control-allow-methods')]).toEqual([204, '*', 'POST, OPTIONS']);
    const anonymous = await fetch(`${dispatch.app.url}v1/message/${command.delivery_id}/retry/`, { method: 'POST', headers: { origin: 'https://console.example.com', authorization: 'Bearer hak_unknown' } });
    expect([anonymous.status, anonymous.headers.get('access-control-allow-origin')]).toEqual([401, '*']);
  });

  it('stores a vendor answer Postgres could not (a NUL, an emoji cut in half by the reason\'s length limit) with those characters replaced, and goes on', async () => {
    // The reason keeps the body's first 300 characters: the 300th is the first half of 😀.
    const body = `bad\u0000${'b'.repeat(295)}😀 tail`;
    twilio.respond({ status: 400, body });
    const command = deliveryCommand('sms', { text: 'garbled answer' }, ['+4915112345678']);
    await dispatch.publishCommand(command);
    const failure = (await dispatch.outcomeOf(command.delivery_id)).envelope.payload;
    expect(failure).toMatchObject({ status: 'delivery_failure', attempts: 1, error: { retryable: false } });
    expect(failure.error?.message).toBe(`twilio answered 400: bad\uFFFD${'b'.repeat(295)}\uFFFD`);

    twilio.respond({ status: 201, body: { sid: 'SM\u0000after' } });
    const next = deliveryCommand('sms', { text: 'next one' }, ['+4915112345678']);
    await dispatch.publishCommand(next);
    expect((await dispatch.outcomeOf(next.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor_message_id: 'SM\uFFFDafter' });
  });

  it('falls back to the next vendor by priority when the first fails permanently', async () => {
    await dispatch.announceVendor('email', 'sendgrid', { priority: 1, baseUrl: sendgrid.url, credentials: { api_key: 'SG.bad' }, settings: { from: 'noreply@acme.test' } });
    const command = deliveryCommand('email', { subject: 'Fallback {{name}}', text: 'x' }, ['ada@example.com']);
    const before = smtp.mails.length;
    await dispatch.publishCommand(command);
    expect((await dispatch.outcomeOf(command.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor: 'email/smtp', attempts: 1 });
    expect(sendgrid.requests.at(-1)?.headers.authorization).toBe('Bearer SG.bad');
    await smtp.received(before + 1);
    expect(smtp.mails[before].raw).toContain('Subject: Fallback Ada');
  });

  it('fails a command whose template does not render, without calling a vendor', async () => {
    const command = deliveryCommand('sms', { text: 'Hi {{#if name}}' }, ['+4915112345678']);
    const before = twilio.requests.length;
    await dispatch.publishCommand(command);
    const outcome = (await dispatch.outcomeOf(command.delivery_id)).envelope.payload;
    expect(outcome).toMatchObject({ status: 'delivery_failure', error: { retryable: false } });
    expect(outcome.error?.message).toMatch(/^template error in text/);
    expect(twilio.requests.length).toBe(before);
  });

  it("renders {{t}} in the recipient's locale, falling back fr-CA → fr → en; a missing key is sent as the key, and fails a strict template", async () => {
    await dispatch.announceTranslations([
      { locale: 'en', content: { hello: 'Hello {{name}}', bye: 'Bye', thanks: 'Thanks' } },
      { locale: 'fr', content: { hello: 'Bonjour {{name}}', bye: 'Au revoir' } },
      { locale: 'fr-CA', content: { hello: 'Allô {{name}}' } },
    ]);
    const sentText = async (locale: string | undefined, text: string, strict = false) => {
      const command = deliveryCommand('sms', { text }, ['+4915112345678']);
      const sms = { ...command, recipient: { ...command.recipient, locale }, template: { ...command.template, strict } };
      const before = twilio.requests.length;
      await dispatch.publishCommand(sms);
      const outcome = (await dispatch.outcomeOf(sms.delivery_id)).envelope.payload;
      if (outcome.status !== 'sent_by_vendor') return outcome.error?.message;
      return new URLSearchParams(twilio.requests.slice(before).find((request) => request.body.includes('Body='))?.body).get('Body');
    };
    expect(await sentText('fr-CA', '{{t "hello"}}. {{t "bye"}}. {{t "thanks"}}.')).toBe('Allô Ada. Au revoir. Thanks.');
    expect(await sentText('fr', '{{t "hello"}}')).toBe('Bonjour Ada');
    expect(await sentText(undefined, '{{t "hello"}}')).toBe('Hello Ada');
    expect(await sentText('fr-CA', '{{t "bye"}} {{t "unknown_key"}}')).toBe('Au revoir unknown_key');
    expect(await sentText('fr-CA', '{{t "unknown_key"}}', true)).toBe('strict template: the data has no value for text: t "unknown_key"');
  });

  it('counts delivery outcomes by channel, vendor and outcome, and times vendor calls, on /metrics', async () => {
    const scrape = async (): Promise<string> => (await fetch(`${dispatch.app.url}metrics`)).text();
    const sent = { channel: 'sms', vendor: 'sms/twilio', outcome: 'sent_by_vendor' };
    const failed = { channel: 'sms', vendor: 'none', outcome: 'delivery_failure' };
    const twilioOk = { channel: 'sms', vendor: 'sms/twilio', result: 'ok' };
    const before = await scrape();

    const good = deliveryCommand('sms', { text: 'counted' }, ['+4915112345678']);
    const bad = deliveryCommand('sms', { text: 'Hi {{#if name}}' }, ['+4915112345678']);
    await dispatch.publishCommand(good);
    await dispatch.publishCommand(bad);
    await dispatch.outcomeOf(good.delivery_id);
    await dispatch.outcomeOf(bad.delivery_id);

    const after = await scrape();
    expect(sampleOf(after, 'herald_deliveries_total', sent) - sampleOf(before, 'herald_deliveries_total', sent)).toBe(1);
    expect(sampleOf(after, 'herald_deliveries_total', failed) - sampleOf(before, 'herald_deliveries_total', failed)).toBe(1);
    expect(sampleOf(after, 'herald_vendor_call_duration_seconds_count', twilioOk) - sampleOf(before, 'herald_vendor_call_duration_seconds_count', twilioOk)).toBe(1);
    expect(sampleOf(after, 'herald_vendor_call_duration_seconds_sum', twilioOk)).toBeGreaterThan(sampleOf(before, 'herald_vendor_call_duration_seconds_sum', twilioOk));
  });

  it('dead-letters a command published on another channel\'s topic, and claims and sends the rest of its batch', async () => {
    const scrape = async (): Promise<string> => (await fetch(`${dispatch.app.url}metrics`)).text();
    const misroutedCounter = { group: 'herald.dispatch.sms', reason: 'rejected' };
    const before = await scrape();
    const misrouted = deliveryCommand('email', { subject: 'lost', text: 'on the sms topic' }, ['ada@example.com']);
    const mates = [1, 2, 3].map((i) => deliveryCommand('sms', { text: `batch mate ${i}` }, ['+4915112345678']));
    await dispatch.publishCommand(mates[0]);
    await dispatch.publishCommand(misrouted, 'sms');
    await dispatch.publishCommand(mates[1]);
    await dispatch.publishCommand(mates[2]);
    for (const mate of mates) {
      expect((await dispatch.outcomeOf(mate.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor: 'sms/twilio' });
    }
    await expectEventually(async () => {
      const after = await scrape();
      expect(sampleOf(after, 'herald_bus_dead_letters_total', misroutedCounter) - sampleOf(before, 'herald_bus_dead_letters_total', misroutedCounter)).toBe(1);
    });
    expect(await dispatch.sql('SELECT 1 FROM dispatch.deliveries WHERE delivery_id = $1', [misrouted.delivery_id])).toHaveLength(0);
  });

  it('stores an inbox command for the recipient, served newest first with seen/read/archived updates', async () => {
    const first = deliveryCommand('inbox', { title: 'Hello {{name}}', body: 'first', action_url: '/a' }, ['user-1'], { recipient: { kind: 'user', distinct_id: 'inbox-user' } });
    const second = deliveryCommand('inbox', { body: 'second' }, ['user-1'], { recipient: { kind: 'user', distinct_id: 'inbox-user' } });
    await dispatch.publishCommand(first);
    expect((await dispatch.outcomeOf(first.delivery_id)).envelope.payload).toMatchObject({ status: 'delivered', vendor: 'inbox/herald_inbox' });
    await dispatch.publishCommand(second);
    await dispatch.outcomeOf(second.delivery_id);

    const page = await dispatch.call('GET', 'v1/user/inbox-user/inbox/?limit=1');
    expect(page.status).toBe(200);
    const body = page.body as { meta: { has_next: boolean; after: string }; results: Array<{ id: string; body: string }> };
    expect(body.results.map((item) => item.body)).toEqual(['second']);
    expect(body.meta.has_next).toBe(true);
    const older = (await dispatch.call('GET', `v1/user/inbox-user/inbox/?after=${body.meta.after}`)).body as typeof body;
    expect(older.results).toMatchObject([{ title: 'Hello Ada', body: 'first', action_url: '/a', seen_at: null, read_at: null }]);

    const read = await dispatch.call('PATCH', `v1/user/inbox-user/inbox/${older.results[0].id}/`, { read: true });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ seen_at: expect.any(String), read_at: expect.any(String), archived_at: null });
    expect((await dispatch.call('PATCH', `v1/user/someone-else/inbox/${older.results[0].id}/`, { read: true })).status).toBe(404);
    expect((await dispatch.call('PATCH', `v1/user/inbox-user/inbox/${older.results[0].id}/`, { starred: true })).status).toBe(400);
  });

  it('stores inbox commands that arrive together (their stores share one transaction) once each, a repeated one only once', async () => {
    const commands = Array.from({ length: 20 }, (_, i) => deliveryCommand('inbox', { body: `together ${i}` }, ['x'], { recipient: { kind: 'user', distinct_id: 'batched-user' } }));
    // One key, one partition: the bus hands them over as one batch, and their stores coalesce.
    for (const command of commands) await dispatch.publishCommand(command);
    for (const command of commands) expect((await dispatch.outcomeOf(command.delivery_id)).envelope.payload).toMatchObject({ status: 'delivered', vendor: 'inbox/herald_inbox' });
    await dispatch.publishCommand(commands[3]);
    const sentinel = deliveryCommand('inbox', { body: 'sentinel' }, ['x'], { recipient: { kind: 'user', distinct_id: 'batched-user' } });
    await dispatch.publishCommand(sentinel);
    await dispatch.outcomeOf(sentinel.delivery_id);
    const page = (await dispatch.call('GET', 'v1/user/batched-user/inbox/?limit=50')).body as { results: Array<{ body: string }> };
    // Attempts run concurrently: the order within a partition was never a delivery guarantee.
    expect(page.results.map((item) => item.body).sort()).toEqual(['sentinel', ...commands.map((_, i) => `together ${i}`)].sort());
  });

  it('reports an inbox message seen and clicked as delivery outcomes, once per kind', async () => {
    const command = deliveryCommand('inbox', { body: 'engage' }, ['x'], { recipient: { kind: 'user', distinct_id: 'engaged-user' } });
    await dispatch.publishCommand(command);
    await dispatch.outcomeOf(command.delivery_id);
    const [item] = ((await dispatch.call('GET', 'v1/user/engaged-user/inbox/')).body as { results: Array<{ id: string }> }).results;
    const engagement = (status: string) => dispatch.outcomes.filter((o) => o.envelope.payload.delivery_id === command.delivery_id && o.envelope.payload.status === status);

    expect((await dispatch.call('PATCH', `v1/user/engaged-user/inbox/${item.id}/`, { seen: true })).status).toBe(200);
    await expectEventually(() => expect(engagement('seen')).toHaveLength(1));
    expect(engagement('seen')[0]).toMatchObject({
      key: `${dispatch.workspaceId}:engaged-user`,
      envelope: { payload: { status: 'seen', run_id: command.run_id, message_id: command.message_id, channel: 'inbox', vendor: 'inbox/herald_inbox' } },
    });
    // Cleared and set again, then read: still seen once. A click is reported on its own, with clicked_at.
    await dispatch.call('PATCH', `v1/user/engaged-user/inbox/${item.id}/`, { seen: false });
    await dispatch.call('PATCH', `v1/user/engaged-user/inbox/${item.id}/`, { read: true });
    const clicked = await dispatch.call('PATCH', `v1/user/engaged-user/inbox/${item.id}/`, { clicked: true });
    expect(clicked.body).toMatchObject({ clicked_at: expect.any(String), seen_at: expect.any(String) });
    await dispatch.call('PATCH', `v1/user/engaged-user/inbox/${item.id}/`, { clicked: true });
    await expectEventually(() => expect(engagement('clicked')).toHaveLength(1));
    expect(engagement('clicked')[0].envelope.payload.at).toBe((clicked.body as { clicked_at: string }).clicked_at);
    // Once the last update's outcome would have been relayed, there is still one of each.
    const sentinel = deliveryCommand('inbox', { body: 'after' }, ['x'], { recipient: { kind: 'user', distinct_id: 'engaged-user' } });
    await dispatch.publishCommand(sentinel);
    await dispatch.outcomeOf(sentinel.delivery_id);
    expect([engagement('seen').length, engagement('clicked').length]).toEqual([1, 1]);
    expect((await dispatch.call('PATCH', `v1/user/engaged-user/inbox/${item.id}/`, { clicked: false })).status).toBe(400);
  });

  it('resolves a claim abandoned between vendor call and record: fails it unless the vendor dedupes (the inbox redoes it)', async () => {
    const abandon = (command: ReturnType<typeof deliveryCommand>) =>
      dispatch.sql(
        `INSERT INTO dispatch.deliveries (delivery_id, workspace_id, channel, message_key, command, status, attempts, claimed_at, lease_expires_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, 'sending', 1, now() - interval '1 hour', now() - interval '1 hour')`,
        [command.delivery_id, dispatch.workspaceId, command.channel, `${dispatch.workspaceId}:user-1`, JSON.stringify(command)],
      );
    const sms = deliveryCommand('sms', { text: 'in doubt' }, ['+4915112345678']);
    const inbox = deliveryCommand('inbox', { body: 'in doubt' }, ['x'], { recipient: { kind: 'user', distinct_id: 'doubt-user' } });
    const before = twilio.requests.length;
    await abandon(sms);
    await abandon(inbox);
    const failure = (await dispatch.outcomeOf(sms.delivery_id)).envelope.payload;
    expect(failure).toMatchObject({ status: 'delivery_failure', error: { retryable: false } });
    expect(failure.error?.message).toMatch(/^outcome unknown/);
    expect(twilio.requests.length).toBe(before);
    expect((await dispatch.outcomeOf(inbox.delivery_id)).envelope.payload).toMatchObject({ status: 'delivered' });
    expect(((await dispatch.call('GET', 'v1/user/doubt-user/inbox/')).body as { results: unknown[] }).results).toHaveLength(1);
  });

  it('refuses the inbox API without a known API key', async () => {
    const response = await fetch(`${dispatch.app.url}v1/user/inbox-user/inbox/`, { headers: { authorization: 'Bearer nope' } });
    expect(response.status).toBe(401);
  });
});

/** The value of the sample of `name` whose labels include `labels` in a Prometheus text exposition (0 when absent). */
function sampleOf(exposition: string, name: string, labels: Record<string, string>): number {
  const line = exposition
    .split('\n')
    .find((candidate) => candidate.startsWith(`${name}{`) && Object.entries(labels).every(([label, value]) => candidate.includes(`${label}="${value}"`)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}
