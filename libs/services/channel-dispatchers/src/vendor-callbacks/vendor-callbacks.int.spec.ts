import { randomUUID } from 'node:crypto';
import { DeliveryOutcome, DeliveryRequested, Envelope, SUPPRESSION_CHANGED_TYPE, SUPPRESSION_CHANGED_VERSION, SuppressionChanged, TOPICS, envelopeOf } from '@herald/contracts';
import { runModeTargets } from '@herald/runtime';
import { expectEventually } from '@herald/testing';
import { RecordingServer } from '../testing/recording-server';
import { DispatchTestApp, deliveryCommand, startDispatchTestApp } from '../testing/dispatch-test-app';
import { SnsClient } from './sns-client';
import {
  mailgunBody,
  metaFailed,
  metaSignature,
  plivoSigned,
  plivoUndelivered,
  postmarkBounce,
  postmarkOpen,
  resendBounce,
  sendgridBody,
  sendgridKeys,
  sesBounce,
  snsSigner,
  svixHeaders,
  twilioSigned,
  twilioUndelivered,
  vonageReceipt,
} from './testing/vendor-samples';

const TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:herald-ses';
const RESEND_SECRET = `whsec_${Buffer.from('resend-webhook-secret').toString('base64')}`;
const TWILIO = { account_sid: `AC${'c'.repeat(32)}`, auth_token: 'twilio-auth-token', from: '+14155550100' };

/**
 * Vendors' own callback bodies (their documentation's samples), signed as each vendor
 * signs them and forged, posted to channel-dispatchers' public route: the outcomes they
 * publish, the suppression list they fill, and what they refuse.
 */
describe.each(runModeTargets())('vendor status callbacks ($name)', ({ database, bus }) => {
  let dispatch: DispatchTestApp;
  let twilio: RecordingServer;
  const sns = snsSigner();
  const confirmed: string[] = [];
  const snsClient: SnsClient = { certificate: async () => sns.publicKeyPem, confirmSubscription: async (url) => void confirmed.push(url) };
  const sendgrid = sendgridKeys();
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    [dispatch, twilio] = await Promise.all([startDispatchTestApp(database, bus, {}, { snsClient }), RecordingServer.start({ status: 201, body: { sid: 'SM-default' } })]);
    // Email vendors other than the one sending are configured for their callbacks (a priority after it).
    ids.sendgrid = await dispatch.announceVendor('email', 'sendgrid', { priority: 5, credentials: { api_key: 'SG.key', webhook_verification_key: sendgrid.verificationKey } });
    ids.mailgun = await dispatch.announceVendor('email', 'mailgun', { priority: 6, credentials: { api_key: 'key', domain: 'mg.example.com', webhook_signing_key: 'mailgun-signing-key' } });
    ids.postmark = await dispatch.announceVendor('email', 'postmark', { priority: 7, credentials: { server_token: 't', webhook_username: 'herald', webhook_password: 'pm-hook-pass' } });
    ids.resend = await dispatch.announceVendor('email', 'resend', { priority: 8, credentials: { api_key: 're_x', webhook_secret: RESEND_SECRET } });
    ids.ses = await dispatch.announceVendor('email', 'ses', { priority: 9, credentials: { access_key_id: 'AKIA', secret_access_key: 's', region: 'us-east-1', sns_topic_arn: TOPIC_ARN } });
    ids.twilio = await dispatch.announceVendor('sms', 'twilio', { priority: 1, baseUrl: twilio.url, credentials: TWILIO });
    ids.vonage = await dispatch.announceVendor('sms', 'vonage', { priority: 2, credentials: { api_key: 'k', api_secret: 's', from: 'Herald', signature_secret: 'vonage-sig-secret' } });
    ids.meta = await dispatch.announceVendor('whatsapp', 'meta_cloud', { priority: 1, credentials: { access_token: 'EAAG', phone_number_id: '106540352242922', app_secret: 'meta-app-secret', verify_token: 'meta-verify' } });
    ids.plivo = await dispatch.announceVendor('sms', 'plivo', { priority: 3, credentials: { auth_id: 'MA', auth_token: 'plivo-auth-token', from: '+14155550100' } });
    ids.bare = await dispatch.announceVendor('email', 'smtp', { priority: 10, credentials: { host: '127.0.0.1', port: 2525, from: 'herald@example.com' } });
  });

  afterAll(async () => {
    await dispatch?.close();
    await twilio?.close();
  });

  const urlOf = (vendor: string, query = ''): string => `${dispatch.app.url}v1/vendor-callbacks/${ids[vendor]}/${query}`;
  const post = async (vendor: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> => {
    const answer = await fetch(urlOf(vendor), { method: 'POST', headers, body });
    const text = await answer.text();
    return { status: answer.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  };
  const postJson = (vendor: string, body: unknown, headers: Record<string, string> = {}) => post(vendor, JSON.stringify(body), { 'content-type': 'application/json', ...headers });
  const postForm = (vendor: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
    post(vendor, new URLSearchParams(params).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });

  /** A delivery as a send through `vendor` records it: sent, with the vendor's id of the message. */
  async function sentThrough(vendor: string, vendorMessageId: string, identity: string, channel: 'email' | 'sms' | 'whatsapp' = 'email'): Promise<DeliveryRequested> {
    const command = deliveryCommand(channel, { subject: 'Hi', text: 'Hi' }, [identity]);
    await dispatch.sql(
      `INSERT INTO dispatch.deliveries (delivery_id, workspace_id, channel, message_key, command, status, attempts, claimed_at, vendor, vendor_message_id)
       VALUES ($1, $2, $3, $4, $5, 'sent', 1, now(), $6, $7)`,
      [command.delivery_id, dispatch.workspaceId, channel, `${dispatch.workspaceId}:user-1`, JSON.stringify(command), `${channel}/${vendor}`, vendorMessageId],
    );
    return command;
  }
  const outcomesOf = (deliveryId: string): Array<Envelope<DeliveryOutcome>> => dispatch.outcomes.map((o) => o.envelope).filter((e) => e.payload.delivery_id === deliveryId);
  const statusesOf = (deliveryId: string): string[] => outcomesOf(deliveryId).map((e) => e.payload.status);
  /** A change as management-api announces it on notify.suppression.changed.v1. */
  const publishSuppression = async (change: SuppressionChanged): Promise<void> => {
    const messageId = randomUUID();
    const envelope = envelopeOf(SUPPRESSION_CHANGED_TYPE, SUPPRESSION_CHANGED_VERSION, messageId, change.workspace_id, new Date(change.at), change);
    await dispatch.bus.publish(TOPICS.suppressionChanged.name, [{ key: change.workspace_id, value: Buffer.from(JSON.stringify(envelope)), headers: { 'message-id': messageId } }]);
  };
  const suppressionOf = async (channel: string, address: string) =>
    (await dispatch.sql(`SELECT reason, vendor FROM dispatch.suppressions WHERE workspace_id = $1 AND channel = $2 AND address = $3`, [dispatch.workspaceId, channel, address]))[0];

  it('SendGrid: a signed batch is recorded (delivered, then bounced as schema_version 2) and suppresses the address; forged, unsigned or replayed, nothing changes', async () => {
    const command = await sentThrough('sendgrid', 'sg-msg-1', 'Bounce.Me@example.com');
    const body = Buffer.from(JSON.stringify(sendgridBody('sg-msg-1', 'bounce.me@example.com')));
    const signed = (signature: string, timestamp = '1600000000') => ({ 'content-type': 'application/json', 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': timestamp });

    expect(await post('sendgrid', body.toString(), signed(sendgridKeys().sign('1600000000', body)))).toMatchObject({ status: 401 });
    expect(await post('sendgrid', body.toString(), { 'content-type': 'application/json' })).toMatchObject({ status: 401 });
    expect(await post('sendgrid', body.toString(), signed(sendgrid.sign('1600000000', body)))).toEqual({ status: 200, body: { received: 2, recorded: 2 } });
    await expectEventually(() => expect(statusesOf(command.delivery_id)).toEqual(['delivered', 'bounced']));
    const bounced = outcomesOf(command.delivery_id)[1];
    expect(bounced.schema_version).toBe(2);
    expect(bounced.payload).toMatchObject({ vendor: 'email/sendgrid', vendor_message_id: 'sg-msg-1', vendor_event: 'bounce', error: { message: 'sendgrid: bounce: 500 unknown recipient', retryable: false } });
    expect(outcomesOf(command.delivery_id)[0].schema_version).toBe(1);
    expect(await suppressionOf('email', 'bounce.me@example.com')).toEqual({ reason: 'hard_bounce', vendor: 'email/sendgrid' });

    // SendGrid retries the same batch: nothing new; an open that follows is recorded after it.
    expect(await post('sendgrid', body.toString(), signed(sendgrid.sign('1600000000', body)))).toMatchObject({ status: 200 });
    const open = Buffer.from(JSON.stringify([{ email: 'bounce.me@example.com', event: 'open', sg_message_id: 'sg-msg-1.filter0001' }]));
    expect(await post('sendgrid', open.toString(), signed(sendgrid.sign('1600000001', open), '1600000001'))).toMatchObject({ status: 200 });
    await expectEventually(() => expect(statusesOf(command.delivery_id)).toEqual(['delivered', 'bounced', 'seen']));
  });

  it.each([
    {
      vendor: 'mailgun',
      sent: () => sentThrough('mailgun', '<20240101.1@mg.example.com>', 'mg@example.com'),
      good: () => postJson('mailgun', mailgunBody('20240101.1@mg.example.com', 'mg@example.com', 'mailgun-signing-key')),
      forged: () => postJson('mailgun', mailgunBody('20240101.1@mg.example.com', 'mg@example.com', 'not-the-key')),
      status: 'bounced',
      suppressed: ['email', 'mg@example.com'],
    },
    {
      vendor: 'postmark',
      sent: () => sentThrough('postmark', 'pm-0001', 'pm@example.com'),
      good: () => postJson('postmark', postmarkBounce('pm-0001', 'pm@example.com'), { authorization: `Basic ${Buffer.from('herald:pm-hook-pass').toString('base64')}` }),
      forged: () => postJson('postmark', postmarkBounce('pm-0001', 'pm@example.com'), { authorization: `Basic ${Buffer.from('herald:guess').toString('base64')}` }),
      status: 'bounced',
      suppressed: ['email', 'pm@example.com'],
    },
    {
      vendor: 'resend',
      sent: () => sentThrough('resend', 're-0001', 'rs@example.com'),
      good: () => {
        const body = JSON.stringify(resendBounce('re-0001', 'rs@example.com'));
        return post('resend', body, { 'content-type': 'application/json', ...svixHeaders(RESEND_SECRET, body, new Date()) });
      },
      forged: () => {
        const body = JSON.stringify(resendBounce('re-0001', 'rs@example.com'));
        return post('resend', body, { 'content-type': 'application/json', ...svixHeaders(`whsec_${Buffer.from('other').toString('base64')}`, body, new Date()) });
      },
      status: 'bounced',
      suppressed: ['email', 'rs@example.com'],
    },
    {
      vendor: 'ses',
      sent: () => sentThrough('smtp', '<ses-herald-1@herald>', 'ses@example.com'),
      good: () => post('ses', JSON.stringify(sns.envelope(TOPIC_ARN, 'Notification', JSON.stringify(sesBounce('0100-ses-id', 'ses@example.com')).replace('<not-ours@example.com>', '<ses-herald-1@herald>'))), { 'content-type': 'text/plain; charset=UTF-8' }),
      forged: () => {
        const envelope = sns.envelope(TOPIC_ARN, 'Notification', JSON.stringify(sesBounce('0100-ses-id', 'ses@example.com')));
        return post('ses', JSON.stringify({ ...envelope, Message: envelope.Message.replace('<not-ours@example.com>', '<ses-herald-1@herald>') }), { 'content-type': 'text/plain; charset=UTF-8' });
      },
      status: 'bounced',
      suppressed: ['email', 'ses@example.com'],
    },
    {
      vendor: 'vonage',
      sent: () => sentThrough('vonage', 'vonage-0001', '+447700900000', 'sms'),
      good: () => postForm('vonage', vonageReceipt('vonage-0001', '447700900000', 'vonage-sig-secret')),
      forged: () => postForm('vonage', vonageReceipt('vonage-0001', '447700900000', 'guessed-secret')),
      status: 'bounced',
      suppressed: ['sms', '+447700900000'],
    },
    {
      vendor: 'plivo',
      sent: () => sentThrough('plivo', 'db3ce55a-7f1d-11e1-8ea7-1231380bc196', '+14155550111', 'sms'),
      good: () => {
        const params = plivoUndelivered('db3ce55a-7f1d-11e1-8ea7-1231380bc196', '14155550111');
        return postForm('plivo', params, plivoSigned('POST', urlOf('plivo'), params, 'plivo-auth-token'));
      },
      forged: () => {
        const params = plivoUndelivered('db3ce55a-7f1d-11e1-8ea7-1231380bc196', '14155550111');
        return postForm('plivo', params, plivoSigned('POST', urlOf('plivo'), params, 'guessed-token'));
      },
      status: 'bounced',
      suppressed: ['sms', '+14155550111'],
    },
    {
      vendor: 'meta',
      sent: () => sentThrough('meta_cloud', 'wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI', '15551234567', 'whatsapp'),
      good: () => {
        const body = JSON.stringify(metaFailed('wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI', '15551234567'));
        return post('meta', body, { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(body, 'meta-app-secret') });
      },
      forged: () => {
        const body = JSON.stringify(metaFailed('wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI', '15551234567'));
        return post('meta', body, { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(body, 'guessed') });
      },
      status: 'bounced',
      suppressed: ['whatsapp', '+15551234567'],
    },
  ])('$vendor: its signed sample is recorded as $status and suppresses the address; a forgery is refused with nothing recorded', async ({ sent, good, forged, status, suppressed }) => {
    const command = await sent();
    expect(await forged()).toMatchObject({ status: 401 });
    expect(await suppressionOf(suppressed[0], suppressed[1])).toBeUndefined();
    expect(await good()).toMatchObject({ status: 200, body: { recorded: 1 } });
    await expectEventually(() => expect(statusesOf(command.delivery_id)).toEqual([status]));
    expect(await suppressionOf(suppressed[0], suppressed[1])).toMatchObject({ reason: 'hard_bounce' });
  });

  it('Postmark opens are seen; Meta answers its verify-token handshake; SNS subscriptions are confirmed for the configured topic only', async () => {
    const command = await sentThrough('postmark', 'pm-open-1', 'reader@example.com');
    const auth = { authorization: `Basic ${Buffer.from('herald:pm-hook-pass').toString('base64')}` };
    expect(await postJson('postmark', postmarkOpen('pm-open-1', 'reader@example.com'), auth)).toMatchObject({ status: 200 });
    await expectEventually(() => expect(statusesOf(command.delivery_id)).toEqual(['seen']));
    expect(await suppressionOf('email', 'reader@example.com')).toBeUndefined();

    const handshake = await fetch(urlOf('meta', '?hub.mode=subscribe&hub.verify_token=meta-verify&hub.challenge=1158201444'));
    expect([handshake.status, await handshake.text()]).toEqual([200, '1158201444']);
    expect((await fetch(urlOf('meta', '?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1'))).status).toBe(403);

    const subscribeUrl = 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=x&Token=2336412f37';
    const confirmation = sns.envelope(TOPIC_ARN, 'SubscriptionConfirmation', 'You have chosen to subscribe to the topic.', { SubscribeURL: subscribeUrl, Token: '2336412f37' });
    expect(await post('ses', JSON.stringify(confirmation), { 'content-type': 'text/plain; charset=UTF-8' })).toMatchObject({ status: 200, body: { confirmed: true } });
    expect(confirmed).toEqual([subscribeUrl]);
    const stranger = sns.envelope('arn:aws:sns:us-east-1:999999999999:theirs', 'SubscriptionConfirmation', 'x', { SubscribeURL: subscribeUrl, Token: 't' });
    expect(await post('ses', JSON.stringify(stranger), { 'content-type': 'text/plain; charset=UTF-8' })).toMatchObject({ status: 403 });
    expect(confirmed).toHaveLength(1);
  });

  it('Twilio: an undelivered SMS to an unknown number bounces it, the next send to the number is skipped as suppressed without calling Twilio, and once the number is taken off the list the next one goes out', async () => {
    twilio.respond({ status: 201, body: { sid: 'SM-bounce-1' } });
    const first = deliveryCommand('sms', { text: 'Your code is 1234' }, ['+15558675310']);
    await dispatch.publishCommand(first);
    expect((await dispatch.outcomeOf(first.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor_message_id: 'SM-bounce-1' });
    const calls = twilio.requests.length;

    const params = twilioUndelivered('SM-bounce-1', '+15558675310');
    expect(await postForm('twilio', params, { 'x-twilio-signature': twilioSigned(urlOf('twilio'), params, 'wrong-token') })).toMatchObject({ status: 401 });
    expect(await postForm('twilio', params)).toMatchObject({ status: 401 });
    expect(await postForm('twilio', params, { 'x-twilio-signature': twilioSigned(urlOf('twilio'), params, TWILIO.auth_token) })).toMatchObject({ status: 200, body: { recorded: 1 } });
    await expectEventually(() => expect(statusesOf(first.delivery_id)).toEqual(['sent_by_vendor', 'bounced']));
    expect(outcomesOf(first.delivery_id)[1].payload).toMatchObject({ error: { message: 'twilio: undelivered: error 30005' } });

    const next = deliveryCommand('sms', { text: 'Your code is 5678' }, ['+1 555 867 5310']);
    await dispatch.publishCommand(next);
    expect((await dispatch.outcomeOf(next.delivery_id)).envelope.payload).toMatchObject({
      status: 'delivery_failure',
      error: { message: expect.stringContaining("suppressed: +1 555 867 5310 is on the workspace's suppression list (hard_bounce: error 30005)"), retryable: false },
    });
    expect(twilio.requests.length).toBe(calls);

    // The operator takes the number off the list (management-api announces it): the next send goes out.
    await publishSuppression({ workspace_id: dispatch.workspaceId, channel: 'sms', address: '+15558675310', change: 'removed', at: new Date().toISOString() });
    await expectEventually(async () => expect(await suppressionOf('sms', '+15558675310')).toBeUndefined());
    twilio.respond({ status: 201, body: { sid: 'SM-after-removal' } });
    const after = deliveryCommand('sms', { text: 'Your code is 9012' }, ['+15558675310']);
    await dispatch.publishCommand(after);
    expect((await dispatch.outcomeOf(after.delivery_id)).envelope.payload).toMatchObject({ status: 'sent_by_vendor', vendor_message_id: 'SM-after-removal' });
    expect(twilio.requests.length).toBe(calls + 1);
  });

  it('refuses what is not a callback it can verify, never with a 5xx: unknown vendor ids, vendors without callback credentials, signed bodies that are not the vendor\'s shape', async () => {
    expect((await fetch(`${dispatch.app.url}v1/vendor-callbacks/00000000-0000-4000-8000-000000000000/`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${dispatch.app.url}v1/vendor-callbacks/not-a-uuid/`, { method: 'POST' })).status).toBe(404);
    expect(await postJson('bare', {})).toMatchObject({ status: 404 });
    const notEvents = Buffer.from(JSON.stringify({ not: 'an array' }));
    expect(
      await post('sendgrid', notEvents.toString(), {
        'content-type': 'application/json',
        'x-twilio-email-event-webhook-signature': sendgrid.sign('1', notEvents),
        'x-twilio-email-event-webhook-timestamp': '1',
      }),
    ).toMatchObject({ status: 400 });
    expect(await post('sendgrid', '{"truncated', { 'content-type': 'application/json' })).toMatchObject({ status: 400 });
    expect(await post('ses', 'not json', { 'content-type': 'text/plain' })).toMatchObject({ status: 400 });
    // A signed callback about a message Herald never sent is acknowledged (the vendor stops retrying) and records nothing.
    const params = twilioUndelivered('SM-unknown', '+15550000000');
    expect(await postForm('twilio', params, { 'x-twilio-signature': twilioSigned(urlOf('twilio'), params, TWILIO.auth_token) })).toMatchObject({ status: 200, body: { recorded: 0 } });
  });
});
