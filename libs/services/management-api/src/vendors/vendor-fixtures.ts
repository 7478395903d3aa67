import { createECDH, generateKeyPairSync } from 'node:crypto';
import { CredentialValue } from './credential-fields';

/** Valid credentials of every catalogued vendor, keyed `channel/vendor`, for tests. Keys are generated, never real. */
export function validCredentials(): Record<string, Record<string, CredentialValue>> {
  const pem = (type: 'ec' | 'rsa'): string =>
    (type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 })
    ).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const vapid = createECDH('prime256v1');
  vapid.generateKeys();
  return {
    'email/smtp': {
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      username: 'mailer-user@example.com',
      password: 'smtp-password-91',
      from: 'Herald <noreply@example.com>',
    },
    'email/sendgrid': { api_key: 'SG.sendgrid-key-0123456789abcdef' },
    'email/ses': { access_key_id: 'AKIAEXAMPLE000000001', secret_access_key: 'ses-secret-access-key-0123456789', region: 'eu-west-1' },
    'email/mailgun': { api_key: 'key-mailgun-0123456789abcdef', domain: 'mg.example.com', region: 'eu' },
    'email/postmark': { server_token: 'pm-server-token-0123456789abcdef' },
    'email/resend': { api_key: 're_resend-key-0123456789abcdef' },
    'sms/twilio': { account_sid: `AC${'0123456789abcdef'.repeat(2)}`, auth_token: 'twilio-auth-token-0123456789', from: '+14155550142' },
    'sms/vonage': { api_key: 'vonage-api-key-01', api_secret: 'vonage-api-secret-0123', from: 'Herald' },
    'sms/plivo': { auth_id: 'MAPLIVOAUTHID0123456', auth_token: 'plivo-auth-token-0123456789', from: '+14155550143' },
    'whatsapp/meta_cloud': { access_token: 'EAAGmeta-access-token-0123456789', phone_number_id: '106540352242922' },
    'androidpush/fcm': {
      service_account_json: JSON.stringify({
        type: 'service_account',
        project_id: 'herald-test',
        client_email: 'herald@herald-test.iam.gserviceaccount.com',
        private_key: pem('rsa'),
        token_uri: 'https://oauth2.googleapis.com/token',
      }),
    },
    'iospush/apns': {
      team_id: 'TEAM123456',
      key_id: 'KEY1234567',
      private_key_p8: pem('ec'),
      bundle_id: 'com.example.herald',
      environment: 'sandbox',
    },
    'webpush/vapid': {
      public_key: vapid.getPublicKey().toString('base64url'),
      private_key: padScalar(vapid.getPrivateKey()).toString('base64url'),
      subject: 'mailto:ops@example.com',
    },
    'slack/slack': { bot_token: 'xoxb-slack-bot-token-0123456789' },
    'ms_teams/ms_teams': { app_id: '7a3c1f0e-5b2d-4c8e-9f61-0d2e4b6a8c10', app_password: 'teams-app-password-0123' },
    'inbox/herald_inbox': {},
  };
}

/**
 * Node returns an EC private scalar without its leading zero bytes (1 key in 256 is
 * shorter than 32 bytes); VAPID keys are written as the full 32 bytes, as web-push does.
 */
export function padScalar(scalar: Buffer): Buffer {
  return scalar.length >= 32 ? scalar : Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]);
}
