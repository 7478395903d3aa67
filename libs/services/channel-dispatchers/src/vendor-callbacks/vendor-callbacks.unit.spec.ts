import { suppressionAddress } from '@herald/contracts';
import { mailgunEvents, metaEvents, plivoEvents, postmarkEvents, resendEvents, sendgridEvents, sesEvents, suppressionOf, twilioEvents, vonageEvents } from './callback-events';
import {
  checkBasicAuth,
  checkMailgunSignature,
  checkMetaSignature,
  checkPlivoSignature,
  checkSendgridSignature,
  checkSnsSignature,
  checkSvixSignature,
  checkTwilioSignature,
  checkVonageSignature,
  snsCertificateUrlProblem,
} from './callback-signatures';
import {
  mailgunBody,
  md5,
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

const NOW = new Date('2026-03-01T10:00:00Z');

describe('vendor callback signatures', () => {
  it('SendGrid: the ECDSA signature of timestamp + raw body with the verification key; another body, timestamp or key is refused', () => {
    const keys = sendgridKeys();
    const body = Buffer.from(JSON.stringify(sendgridBody('abc', 'ada@example.com')));
    const signature = keys.sign('1600000000', body);
    expect(checkSendgridSignature(body, signature, '1600000000', keys.verificationKey)).toBeUndefined();
    expect(checkSendgridSignature(Buffer.concat([body, Buffer.from(' ')]), signature, '1600000000', keys.verificationKey)).toBe('the signature does not match');
    expect(checkSendgridSignature(body, signature, '1600000001', keys.verificationKey)).toBe('the signature does not match');
    expect(checkSendgridSignature(body, signature, '1600000000', sendgridKeys().verificationKey)).toBe('the signature does not match');
    expect(checkSendgridSignature(body, undefined, '1600000000', keys.verificationKey)).toMatch(/required/);
    expect(checkSendgridSignature(body, 'not base64 DER', '1600000000', 'not a key')).toBe('the signature does not match');
  });

  it('Mailgun: HMAC-SHA256 of timestamp + token with the signing key', () => {
    const body = mailgunBody('<id@mg.example.com>', 'ada@example.com', 'key-signing');
    expect(checkMailgunSignature(body.signature as Record<string, unknown>, 'key-signing')).toBeUndefined();
    expect(checkMailgunSignature(body.signature as Record<string, unknown>, 'key-other')).toBe('the signature does not match');
    expect(checkMailgunSignature(undefined, 'key-signing')).toMatch(/required/);
  });

  it("Plivo (V3): HMAC-SHA256 of the URL, its sorted query, the sorted form parameters and the nonce, as Plivo's SDK rebuilds it", () => {
    const url = 'https://herald.example.com/v1/vendor-callbacks/3f1c/';
    const params = plivoUndelivered('db3ce55a-7f1d-11e1-8ea7-1231380bc196', '+14155550111');
    const post = plivoSigned('POST', url, params, 'plivo-auth-token');
    const headers = (given: Record<string, string>) => ({ signature: given['x-plivo-signature-v3'], nonce: given['x-plivo-signature-v3-nonce'] });
    expect(checkPlivoSignature('POST', url, params, headers(post), 'plivo-auth-token')).toBeUndefined();
    // One signature per active auth token: any of them will do.
    expect(checkPlivoSignature('POST', url, params, { ...headers(post), signature: `bm90IHRoaXMgb25l, ${post['x-plivo-signature-v3']}` }, 'plivo-auth-token')).toBeUndefined();
    expect(checkPlivoSignature('POST', url, { ...params, Status: 'delivered' }, headers(post), 'plivo-auth-token')).toBe('the signature does not match');
    expect(checkPlivoSignature('POST', url, params, { ...headers(post), nonce: '1' }, 'plivo-auth-token')).toBe('the signature does not match');
    expect(checkPlivoSignature('POST', url, params, headers(post), 'other-token')).toBe('the signature does not match');
    expect(checkPlivoSignature('POST', url, params, { signature: post['x-plivo-signature-v3'] }, 'plivo-auth-token')).toMatch(/required/);
    // A GET carries the parameters in its query, sorted by name then value; a query and a form both are signed with a `.` between.
    const get = `${url}?To=%2B14155550111&Status=delivered&MessageUUID=m1&Tag=b&Tag=a`;
    expect(checkPlivoSignature('GET', get, {}, headers(plivoSigned('GET', get, {}, 't')), 't')).toBeUndefined();
    const both = `${url}?herald=1`;
    expect(checkPlivoSignature('POST', both, params, headers(plivoSigned('POST', both, params, 't')), 't')).toBeUndefined();
    expect(checkPlivoSignature('POST', both, params, headers(plivoSigned('POST', url, params, 't')), 't')).toBe('the signature does not match');
  });

  it('Postmark: the basic-auth pair of the webhook URL', () => {
    const header = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    expect(checkBasicAuth(header('herald', 's3cret:with colon'), 'herald', 's3cret:with colon')).toBeUndefined();
    expect(checkBasicAuth(header('herald', 'wrong'), 'herald', 's3cret')).toBe('the credentials do not match');
    expect(checkBasicAuth(undefined, 'herald', 's3cret')).toMatch(/required/);
  });

  it("Twilio: HMAC-SHA1 over the URL and sorted parameters, as Twilio's own docs example computes it", () => {
    // Twilio's documented example: this URL, these parameters and auth token give this signature.
    const params = { CallSid: 'CA1234567890ABCDE', Caller: '+14158675310', Digits: '1234', From: '+14158675310', To: '+18005551212' };
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    expect(twilioSigned(url, params, '12345')).toBe('GvWf1cFY/Q7PnoempGyD5oXAezc=');
    expect(checkTwilioSignature('GvWf1cFY/Q7PnoempGyD5oXAezc=', url, params, '12345')).toBeUndefined();
    expect(checkTwilioSignature('GvWf1cFY/Q7PnoempGyD5oXAezc=', url, { ...params, Digits: '1235' }, '12345')).toBe('the signature does not match');
    expect(checkTwilioSignature(undefined, url, params, '12345')).toMatch(/required/);
  });

  it('Vonage: md5hash of the sorted &name=value string and the secret, values with & and = replaced', () => {
    const params = { b: 'x=y', a: '1&2' };
    const signed = { ...params, sig: md5('&a=1_2&b=x_y' + 'secret') };
    expect(checkVonageSignature(signed, 'secret', 'md5hash')).toBeUndefined();
    expect(checkVonageSignature({ ...signed, sig: signed.sig.toUpperCase() }, 'secret', 'md5hash')).toBeUndefined();
    expect(checkVonageSignature(signed, 'other', 'md5hash')).toBe('the signature does not match');
    expect(checkVonageSignature(vonageReceipt('m1', '447700900000', 'secret'), 'secret', 'md5hash')).toBeUndefined();
    expect(checkVonageSignature(params, 'secret', 'md5hash')).toMatch(/required/);
  });

  it('Meta: X-Hub-Signature-256 of the raw body with the app secret', () => {
    const body = JSON.stringify(metaFailed('wamid.1', '15551234567'));
    expect(checkMetaSignature(Buffer.from(body), metaSignature(body, 'app-secret'), 'app-secret')).toBeUndefined();
    expect(checkMetaSignature(Buffer.from(body + ' '), metaSignature(body, 'app-secret'), 'app-secret')).toBe('the signature does not match');
    expect(checkMetaSignature(Buffer.from(body), undefined, 'app-secret')).toMatch(/required/);
  });

  it('Resend (svix): v1 HMAC of id.timestamp.body with the whsec secret, within 5 minutes', () => {
    const secret = `whsec_${Buffer.from('resend-secret-bytes').toString('base64')}`;
    const body = JSON.stringify(resendBounce('e1', 'ada@example.com'));
    const headers = svixHeaders(secret, body, NOW);
    const check = (h: Record<string, string>, at = NOW, b = body) => checkSvixSignature(Buffer.from(b), { id: h['svix-id'], timestamp: h['svix-timestamp'], signature: h['svix-signature'] }, secret, at);
    expect(check(headers)).toBeUndefined();
    expect(check({ ...headers, 'svix-signature': `v1,bogus ${headers['svix-signature']}` })).toBeUndefined();
    expect(check(headers, NOW, body + ' ')).toBe('the signature does not match');
    expect(check(headers, new Date(NOW.getTime() + 6 * 60_000))).toMatch(/5 minutes/);
  });

  it('SNS: the RSA signature of the canonical fields; a certificate URL off SNS hosts is refused', () => {
    const signer = snsSigner();
    const envelope = signer.envelope('arn:aws:sns:us-east-1:123456789012:ses', 'Notification', JSON.stringify(sesBounce('m1', 'ada@example.com')));
    expect(checkSnsSignature(envelope, signer.publicKeyPem)).toBeUndefined();
    expect(checkSnsSignature({ ...envelope, Message: '{}' }, signer.publicKeyPem)).toBe('the signature does not match');
    expect(checkSnsSignature(envelope, snsSigner().publicKeyPem)).toBe('the signature does not match');
    expect(checkSnsSignature({ ...envelope, SignatureVersion: '3' }, signer.publicKeyPem)).toMatch(/SignatureVersion/);
    expect(snsCertificateUrlProblem(envelope.SigningCertURL)).toBeUndefined();
    for (const url of ['http://sns.us-east-1.amazonaws.com/a.pem', 'https://sns.us-east-1.amazonaws.com.evil.test/a.pem', 'https://evil.test/sns.us-east-1.amazonaws.com/a.pem']) {
      expect(snsCertificateUrlProblem(url)).toBeDefined();
    }
  });
});

describe('vendor callback events, mapped to Herald statuses', () => {
  it('SendGrid: delivered and bounce by the X-Message-Id before the filter suffix; processed ignored', () => {
    const parsed = sendgridEvents(sendgridBody('abc', 'ada@example.com'));
    expect(parsed).toEqual({
      ok: true,
      events: [
        expect.objectContaining({ status: 'delivered', vendorEvent: 'delivered', address: 'ada@example.com', messageIds: expect.arrayContaining(['abc']) }),
        expect.objectContaining({ status: 'bounced', vendorEvent: 'bounce', detail: '500 unknown recipient' }),
      ],
    });
    expect(sendgridEvents([{ event: 'bounce', type: 'blocked', sg_message_id: 'x.f' }])).toMatchObject({ events: [{ status: 'delivery_failure', vendorEvent: 'blocked' }] });
    expect(sendgridEvents([{ event: 'spamreport', sg_message_id: 'x' }, { event: 'open', sg_message_id: 'x' }, { event: 'click', sg_message_id: 'x' }])).toMatchObject({
      events: [{ status: 'complained' }, { status: 'seen' }, { status: 'clicked' }],
    });
    expect(sendgridEvents({ not: 'an array' })).toMatchObject({ ok: false });
  });

  it('Mailgun: failed/permanent is a bounce, failed/temporary a failure; the Message-ID is looked up with and without brackets', () => {
    expect(mailgunEvents(mailgunBody('id@mg.example.com', 'ada@example.com', 'k'))).toMatchObject({
      events: [{ status: 'bounced', messageIds: expect.arrayContaining(['id@mg.example.com', '<id@mg.example.com>']), address: 'ada@example.com' }],
    });
    const temporary = mailgunBody('id@mg', 'a@b.c', 'k') as { 'event-data': Record<string, unknown> };
    temporary['event-data'].severity = 'temporary';
    expect(mailgunEvents(temporary)).toMatchObject({ events: [{ status: 'delivery_failure' }] });
    expect(mailgunEvents(mailgunBody('id@mg', 'a@b.c', 'k', 'opened'))).toMatchObject({ events: [{ status: 'seen' }] });
    expect(mailgunEvents({})).toMatchObject({ ok: false, path: 'event-data' });
  });

  it('Postmark: HardBounce is a bounce, SpamComplaint a complaint, Open seen, soft bounces failures', () => {
    expect(postmarkEvents(postmarkBounce('pm-1', 'ada@example.com'))).toMatchObject({ events: [{ status: 'bounced', vendorEvent: 'HardBounce', detail: 'Test bounce details' }] });
    expect(postmarkEvents({ ...postmarkBounce('pm-1', 'a@b.c'), Type: 'SoftBounce' })).toMatchObject({ events: [{ status: 'delivery_failure' }] });
    expect(postmarkEvents({ ...postmarkBounce('pm-1', 'a@b.c'), Type: 'SpamComplaint' })).toMatchObject({ events: [{ status: 'complained' }] });
    expect(postmarkEvents(postmarkOpen('pm-1', 'ada@example.com'))).toMatchObject({ events: [{ status: 'seen', address: 'ada@example.com' }] });
    expect(postmarkEvents({ RecordType: 'SubscriptionChange', MessageID: 'x' })).toEqual({ ok: true, events: [] });
  });

  it("SES: a permanent bounce per bounced recipient, by SES's id or the Message-ID header", () => {
    expect(sesEvents(sesBounce('ses-1', 'ada@example.com'))).toMatchObject({
      events: [{ status: 'bounced', address: 'ada@example.com', detail: 'smtp; 550 5.1.1 user unknown', messageIds: expect.arrayContaining(['ses-1', '<not-ours@example.com>']) }],
    });
    const transient = sesBounce('ses-1', 'a@b.c') as { bounce: Record<string, unknown> };
    transient.bounce.bounceType = 'Transient';
    expect(sesEvents(transient)).toMatchObject({ events: [{ status: 'delivery_failure' }] });
    expect(sesEvents({ notificationType: 'Complaint', mail: { messageId: 'x' }, complaint: { complainedRecipients: [{ emailAddress: 'a@b.c' }] } })).toMatchObject({
      events: [{ status: 'complained', address: 'a@b.c' }],
    });
  });

  it('Resend, Twilio, Vonage, Plivo and Meta', () => {
    expect(resendEvents(resendBounce('e1', 'ada@example.com'))).toMatchObject({ events: [{ status: 'bounced', address: 'ada@example.com', messageIds: ['e1'] }] });
    expect(twilioEvents(twilioUndelivered('SM1', '+15558675310'))).toMatchObject({ events: [{ status: 'bounced', detail: 'error 30005', address: '+15558675310' }] });
    expect(twilioEvents({ ...twilioUndelivered('SM1', '+1'), ErrorCode: '30008' })).toMatchObject({ events: [{ status: 'delivery_failure' }] });
    expect(twilioEvents({ MessageSid: 'SM1', MessageStatus: 'delivered' })).toMatchObject({ events: [{ status: 'delivered' }] });
    expect(twilioEvents({ MessageSid: 'SM1', MessageStatus: 'sent' })).toEqual({ ok: true, events: [] });
    expect(twilioEvents({})).toMatchObject({ ok: false, path: 'MessageSid' });
    expect(vonageEvents(vonageReceipt('v1', '447700900000', 's'))).toMatchObject({ events: [{ status: 'bounced', address: '447700900000' }] });
    expect(vonageEvents(vonageReceipt('v1', '447700900000', 's', 'delivered'))).toMatchObject({ events: [{ status: 'delivered' }] });
    expect(plivoEvents(plivoUndelivered('p1', '+14155550111'))).toMatchObject({ events: [{ status: 'bounced', messageIds: ['p1'], address: '+14155550111', detail: 'error 50' }] });
    expect(plivoEvents(plivoUndelivered('p1', '+14155550111', '20'))).toMatchObject({ events: [{ status: 'delivery_failure', vendorEvent: 'undelivered', detail: 'error 20' }] });
    expect(plivoEvents({ MessageUUID: 'p1', Status: 'delivered', ErrorCode: '000' })).toEqual({ ok: true, events: [{ messageIds: ['p1'], status: 'delivered', vendorEvent: 'delivered' }] });
    expect(plivoEvents({ MessageUUID: 'p1', Status: 'queued' })).toEqual({ ok: true, events: [] });
    expect(plivoEvents({ Status: 'delivered' })).toMatchObject({ ok: false, path: 'MessageUUID' });
    expect(metaEvents(metaFailed('wamid.1', '15551234567'))).toMatchObject({ events: [{ status: 'bounced', messageIds: ['wamid.1'], detail: 'error 131026: Message undeliverable' }] });
    expect(metaEvents({ entry: [{ changes: [{ value: { statuses: [{ id: 'w', status: 'read' }] } }] }] })).toMatchObject({ events: [{ status: 'seen' }] });
  });

  it('hard bounces and complaints suppress the address, in the form sends compare', () => {
    expect(suppressionOf({ messageIds: ['x'], status: 'bounced', vendorEvent: 'bounce' })).toBe('hard_bounce');
    expect(suppressionOf({ messageIds: ['x'], status: 'complained', vendorEvent: 'spamreport' })).toBe('complaint');
    expect(suppressionOf({ messageIds: ['x'], status: 'delivery_failure', vendorEvent: 'blocked' })).toBeUndefined();
    expect(suppressionAddress('email', ' Ada@Example.COM ')).toBe('ada@example.com');
    expect(suppressionAddress('whatsapp', '15551234567')).toBe('+15551234567');
    expect(suppressionAddress('sms', '+1 (555) 123-4567')).toBe('+15551234567');
  });
});
