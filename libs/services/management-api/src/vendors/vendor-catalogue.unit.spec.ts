import { HeraldError } from '@herald/contracts';
import { createECDH, generateKeyPairSync } from 'node:crypto';
import { flag, identifier, integer, secret, setting, shownCredential } from './credential-fields';
import { CHANNELS, VENDOR_CATALOGUE, VendorSpec, validateCredentials, vendorSpecOf } from './vendor-catalogue';
import { padScalar, validCredentials } from './vendor-fixtures';

describe('vendor catalogue', () => {
  const valid = validCredentials();
  const spec = (id: string): VendorSpec => vendorSpecOf(...(id.split('/') as [string, string]));
  const errorsOf = (id: string, credentials: Record<string, unknown>) => validateCredentials(spec(id), credentials).errors;

  it('has a vendor for every channel, and a fixture for every vendor', () => {
    expect(new Set(VENDOR_CATALOGUE.map((s) => s.channel))).toEqual(new Set(CHANNELS));
    expect(Object.keys(valid).sort()).toEqual(VENDOR_CATALOGUE.map((s) => `${s.channel}/${s.vendor}`).sort());
  });

  it.each(VENDOR_CATALOGUE.map((s) => [`${s.channel}/${s.vendor}`]))('accepts valid credentials of %s', (id) => {
    expect(validateCredentials(spec(id), valid[id])).toEqual({ credentials: valid[id], errors: [] });
  });

  it('answers 404 for an unknown channel or a vendor of another channel', () => {
    expect(() => vendorSpecOf('fax', 'smtp')).toThrow(HeraldError);
    expect(() => vendorSpecOf('email', 'twilio')).toThrow(
      "channel 'email' has no vendor 'twilio' (vendors: smtp, sendgrid, ses, mailgun, postmark, resend)",
    );
  });

  it('reports every missing, mistyped and unknown field by path', () => {
    expect(errorsOf('email/smtp', { host: 'smtp example', port: 0, secure: 'yes', apikey: 'x' })).toEqual([
      { path: 'credentials.host', message: 'must be a host name' },
      { path: 'credentials.port', message: 'must be an integer from 1 to 65535' },
      { path: 'credentials.secure', message: 'must be a boolean' },
      { path: 'credentials.username', message: 'is required' },
      { path: 'credentials.password', message: 'is required' },
      { path: 'credentials.from', message: 'is required' },
      { path: 'credentials.apikey', message: 'is not a credential of smtp (expected: host, port, secure, username, password, from, track_opens, track_clicks)' },
    ]);
    expect(errorsOf('inbox/herald_inbox', { token: 'x' })).toEqual([
      { path: 'credentials.token', message: 'is not a credential of herald_inbox (it takes none)' },
    ]);
  });

  it('refuses a pasted value with surrounding whitespace, but not a PEM ending in a newline', () => {
    expect(errorsOf('email/sendgrid', { api_key: 'SG.abc\n' })).toEqual([
      { path: 'credentials.api_key', message: 'must be one line without surrounding whitespace' },
    ]);
    const apns = valid['iospush/apns'];
    expect(errorsOf('iospush/apns', { ...apns, private_key_p8: `${String(apns.private_key_p8)}\n` })).toEqual([]);
  });

  it('checks keys for what the vendor signs with', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(errorsOf('iospush/apns', { ...valid['iospush/apns'], private_key_p8: rsa })).toEqual([
      { path: 'credentials.private_key_p8', message: 'must be an EC private key' },
    ]);
    expect(errorsOf('androidpush/fcm', { service_account_json: JSON.stringify({ project_id: 'p', client_email: 'a@b.co' }) })).toEqual([
      { path: 'credentials.service_account_json', message: 'must hold private_key' },
    ]);
    expect(errorsOf('androidpush/fcm', { service_account_json: '{not json' })).toEqual([
      { path: 'credentials.service_account_json', message: 'must be the service account key file (JSON)' },
    ]);
    const other = createECDH('prime256v1');
    other.generateKeys();
    expect(errorsOf('webpush/vapid', { ...valid['webpush/vapid'], private_key: padScalar(other.getPrivateKey()).toString('base64url') })).toEqual([
      { path: 'credentials.private_key', message: 'does not belong to public_key' },
    ]);
  });

  it('accepts a VAPID pair whose private scalar begins with a zero byte, written as 32 bytes', () => {
    // Node drops leading zero bytes of a scalar (1 key in 256): find such a key.
    let ecdh = createECDH('prime256v1');
    for (let tries = 0; tries < 20_000; tries++) {
      ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      if (ecdh.getPrivateKey().length < 32) break;
    }
    expect(ecdh.getPrivateKey().length).toBeLessThan(32);
    const pair = {
      ...valid['webpush/vapid'],
      public_key: ecdh.getPublicKey().toString('base64url'),
      private_key: padScalar(ecdh.getPrivateKey()).toString('base64url'),
    };
    expect(errorsOf('webpush/vapid', pair)).toEqual([]);
  });

  it('takes the Teams bot credentials both or neither', () => {
    expect(errorsOf('ms_teams/ms_teams', {})).toEqual([]);
    expect(errorsOf('ms_teams/ms_teams', { app_id: '7a3c1f0e-5b2d-4c8e-9f61-0d2e4b6a8c10' })).toEqual([
      { path: 'credentials.app_password', message: 'is required together with app_id' },
    ]);
  });

  it('derives the default API base URL from the credentials where the vendor has regions or environments', () => {
    expect(spec('email/mailgun').defaultBaseUrl({ region: 'eu' })).toBe('https://api.eu.mailgun.net');
    expect(spec('email/mailgun').defaultBaseUrl({})).toBe('https://api.mailgun.net');
    expect(spec('email/ses').defaultBaseUrl({ region: 'eu-west-1' })).toBe('https://email.eu-west-1.amazonaws.com');
    expect(spec('iospush/apns').defaultBaseUrl({ environment: 'production' })).toBe('https://api.push.apple.com');
    expect(spec('iospush/apns').defaultBaseUrl({ environment: 'sandbox' })).toBe('https://api.sandbox.push.apple.com');
    expect(spec('email/smtp').defaultBaseUrl({})).toBeNull();
  });

  it('shows settings in full, a hint of long keys, and nothing of secrets, short keys or unknown fields', () => {
    expect(shownCredential(setting(), 'smtp.example.com')).toBe('smtp.example.com');
    expect(shownCredential(integer(1, 65535), 587)).toBe(587);
    expect(shownCredential(flag(), true)).toBe(true);
    expect(shownCredential(identifier(), 'SG.0123456789abcdef')).toBe('SG.0****');
    expect(shownCredential(identifier(), 'short-key-15chr')).toBe('********');
    expect(shownCredential(secret(), 'a-very-long-password-indeed')).toBe('********');
    expect(shownCredential(undefined, 'a field the catalogue no longer has')).toBe('********');
    // A stored value of the wrong type for its field is never shown.
    expect(shownCredential(integer(1, 65535), 'oops')).toBe('********');
    expect(shownCredential(setting(), 42)).toBe('********');
  });

  it('shows every password, token and private key of the catalogue masked', () => {
    expect(shownCredential(spec('email/smtp').credentials.host, 'smtp.example.com')).toBe('smtp.example.com');
    expect(shownCredential(spec('email/smtp').credentials.password, 'a-very-long-password-indeed')).toBe('********');
    expect(shownCredential(spec('sms/twilio').credentials.auth_token, '0123456789abcdef0123456789abcdef')).toBe('********');
    expect(shownCredential(spec('webpush/vapid').credentials.private_key, 'x'.repeat(43))).toBe('********');
  });
});
