import { validateTrigger } from './trigger';
import { REMOVE } from './testing/json-path';
import { sampleTrigger } from './testing/sample-bodies';
import { FailingCase, PassingCase, pathsAfter } from './testing/table';

/**
 * Recipient rules (interface 2.1.1 and 2.1.2) through validateTrigger: in the sample,
 * recipients[1] is a full inline user, [2] a transient one, [3] holds every Slack and
 * MS Teams form, [4] is an object recipient.
 */
const U = 'recipients[1]';
const SLACK = 'recipients[3].$slack';
const TEAMS = 'recipients[3].$ms_teams';
const OBJ = 'recipients[4]';

const failing: FailingCase[] = [
  { rule: 'distinct_id is required', changes: { [`${U}.distinct_id`]: REMOVE }, paths: [`${U}.distinct_id`] },
  { rule: 'distinct_id must be a string', changes: { [`${U}.distinct_id`]: 12 }, paths: [`${U}.distinct_id`] },
  { rule: 'distinct_id must not be blank', changes: { [`${U}.distinct_id`]: ' ' }, paths: [`${U}.distinct_id`] },
  { rule: 'is_transient false still needs distinct_id', changes: { 'recipients[2].is_transient': false }, paths: ['recipients[2].distinct_id'] },
  { rule: 'is_transient must be a boolean', changes: { 'recipients[2].is_transient': 'true' }, paths: ['recipients[2].distinct_id', 'recipients[2].is_transient'] },
  { rule: '$channels must be an array', changes: { [`${U}.$channels`]: 'email' }, paths: [`${U}.$channels`] },
  { rule: '$channels values come from the enumeration', changes: { [`${U}.$channels`]: ['email', 'fax', 'EMAIL'] }, paths: [`${U}.$channels[1]`, `${U}.$channels[2]`] },
  { rule: '$email items are email addresses', changes: { [`${U}.$email`]: ['jane@', 'ok@example.com', 'a b@example.com'] }, paths: [`${U}.$email[0]`, `${U}.$email[2]`] },
  { rule: '$email is an array or one string', changes: { [`${U}.$email`]: 5 }, paths: [`${U}.$email`] },
  { rule: '$email items are strings', changes: { [`${U}.$email`]: [['jane@example.com']] }, paths: [`${U}.$email[0]`] },
  { rule: '$sms items are phone numbers', changes: { [`${U}.$sms`]: ['12345'] }, paths: [`${U}.$sms[0]`] },
  { rule: '$whatsapp items have at most 15 digits', changes: { [`${U}.$whatsapp`]: ['+1234567890123456'] }, paths: [`${U}.$whatsapp[0]`] },
  { rule: '$inbox items are non-empty', changes: { [`${U}.$inbox`]: [''] }, paths: [`${U}.$inbox[0]`] },
  { rule: '$androidpush object needs token', changes: { [`${U}.$androidpush`]: [{ provider: 'fcm' }] }, paths: [`${U}.$androidpush[0].token`] },
  { rule: '$iospush items are strings or token objects', changes: { [`${U}.$iospush`]: [7] }, paths: [`${U}.$iospush[0]`] },
  { rule: '$iospush provider is a string', changes: { [`${U}.$iospush`]: [{ token: 't', provider: 1 }] }, paths: [`${U}.$iospush[0].provider`] },
  { rule: '$webpush needs endpoint', changes: { [`${U}.$webpush[0].endpoint`]: REMOVE }, paths: [`${U}.$webpush[0].endpoint`] },
  { rule: '$webpush endpoint is a URL', changes: { [`${U}.$webpush[0].endpoint`]: 'fcm-endpoint' }, paths: [`${U}.$webpush[0].endpoint`] },
  { rule: '$webpush needs keys', changes: { [`${U}.$webpush[0].keys`]: REMOVE }, paths: [`${U}.$webpush[0].keys`] },
  { rule: '$webpush needs keys.auth', changes: { [`${U}.$webpush[0].keys.auth`]: REMOVE }, paths: [`${U}.$webpush[0].keys.auth`] },
  { rule: '$webpush items are objects', changes: { [`${U}.$webpush`]: ['https://fcm.googleapis.com/x'] }, paths: [`${U}.$webpush[0]`] },
  { rule: '$timezone is an IANA name', changes: { [`${U}.$timezone`]: 'Mars/Olympus' }, paths: [`${U}.$timezone`] },
  { rule: '$timezone is not an offset', changes: { [`${U}.$timezone`]: '+05:00' }, paths: [`${U}.$timezone`] },
  { rule: '$timezone is a string', changes: { [`${U}.$timezone`]: 5.5 }, paths: [`${U}.$timezone`] },
  { rule: '$locale is a locale code', changes: { [`${U}.$locale`]: 'english' }, paths: [`${U}.$locale`] },
  { rule: 'slack entry is an object', changes: { [`${SLACK}[0]`]: 'jane@example.com' }, paths: [`${SLACK}[0]`] },
  { rule: 'slack entry matching no form', changes: { [`${SLACK}[0]`]: { access_token: 'xoxb' } }, paths: [`${SLACK}[0]`] },
  { rule: 'slack entry matching two forms', changes: { [`${SLACK}[0].user_id`]: 'U1' }, paths: [`${SLACK}[0]`] },
  { rule: 'slack entry matching webhook and channel', changes: { [`${SLACK}[3].channel`]: 'C1' }, paths: [`${SLACK}[3]`] },
  { rule: 'slack access_token, when sent, is not blank', changes: { [`${SLACK}[0].access_token`]: ' ' }, paths: [`${SLACK}[0].access_token`] },
  { rule: 'slack by email needs a valid email', changes: { [`${SLACK}[0].email`]: 'jane' }, paths: [`${SLACK}[0].email`] },
  { rule: 'slack by member id: user_id not blank', changes: { [`${SLACK}[1].user_id`]: '' }, paths: [`${SLACK}[1].user_id`] },
  { rule: 'slack by channel: access_token a string', changes: { [`${SLACK}[2].access_token`]: 1 }, paths: [`${SLACK}[2].access_token`] },
  { rule: 'slack webhook is an object', changes: { [`${SLACK}[3].incoming_webhook`]: 'https://hooks.slack.com/x' }, paths: [`${SLACK}[3].incoming_webhook`] },
  { rule: 'slack webhook needs url', changes: { [`${SLACK}[3].incoming_webhook.url`]: REMOVE }, paths: [`${SLACK}[3].incoming_webhook.url`] },
  { rule: 'slack webhook url is a URL', changes: { [`${SLACK}[3].incoming_webhook.url`]: 'hooks.slack.com/x' }, paths: [`${SLACK}[3].incoming_webhook.url`] },
  { rule: '$slack is an array or one entry', changes: { [SLACK]: 5 }, paths: [SLACK] },
  { rule: 'teams entry matching no form', changes: { [`${TEAMS}[0]`]: { tenant_id: 't' } }, paths: [`${TEAMS}[0]`] },
  { rule: 'teams entry matching two forms', changes: { [`${TEAMS}[0].user_id`]: 'u' }, paths: [`${TEAMS}[0]`] },
  { rule: 'teams by conversation needs tenant_id', changes: { [`${TEAMS}[0].tenant_id`]: REMOVE }, paths: [`${TEAMS}[0].tenant_id`] },
  { rule: 'teams by conversation: conversation_id not blank', changes: { [`${TEAMS}[0].conversation_id`]: ' ' }, paths: [`${TEAMS}[0].conversation_id`] },
  { rule: 'teams by user needs service_url', changes: { [`${TEAMS}[1].service_url`]: REMOVE }, paths: [`${TEAMS}[1].service_url`] },
  { rule: 'teams service_url is a URL', changes: { [`${TEAMS}[1].service_url`]: 'smba.trafficmanager.net' }, paths: [`${TEAMS}[1].service_url`] },
  { rule: 'teams webhook url is a URL', changes: { [`${TEAMS}[2].incoming_webhook.url`]: 'ftp://x' }, paths: [`${TEAMS}[2].incoming_webhook.url`] },
  { rule: 'object_type must not be blank', changes: { [`${OBJ}.object_type`]: '' }, paths: [`${OBJ}.object_type`] },
  { rule: 'object_type null still marks an object, and is required', changes: { [`${OBJ}.object_type`]: null }, paths: [`${OBJ}.object_type`] },
  { rule: 'object id is required', changes: { [`${OBJ}.id`]: REMOVE }, paths: [`${OBJ}.id`] },
  { rule: 'object id is a string', changes: { [`${OBJ}.id`]: 42 }, paths: [`${OBJ}.id`] },
  { rule: 'object inline channels are checked', changes: { [`${OBJ}.$email`]: ['devs'] }, paths: [`${OBJ}.$email[0]`] },
];

const passing: PassingCase[] = [
  { rule: 'transient user with a distinct_id', changes: { 'recipients[2].distinct_id': 'anon-1' } },
  { rule: 'transient user with distinct_id null', changes: { 'recipients[2].distinct_id': null } },
  { rule: 'is_transient false with distinct_id', changes: { [`${U}.is_transient`]: false } },
  {
    rule: 'single-value channel shorthands (SDK schema)',
    changes: { [`${U}.$email`]: 'jane@example.com', [`${U}.$sms`]: '+1 415 555 0100', [`${U}.$slack`]: { channel_id: 'C1', access_token: 'x' } },
  },
  { rule: 'empty channel lists and $channels', changes: { [`${U}.$email`]: [], [`${U}.$channels`]: [] } },
  { rule: 'every channel in $channels', changes: { [`${U}.$channels`]: ['email', 'sms', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams', 'webpush', 'whatsapp'] } },
  { rule: 'email address forms', changes: { [`${U}.$email`]: ["o'neil@example.ie", 'jörg@bücher.de', 'a.b+tag@sub.example.co.uk', 'x@xn--bcher-kva.example'] } },
  { rule: 'phone number forms', changes: { [`${U}.$sms`]: ['+1 (415) 555-0100', '4155550100', '+44 20 7946 0958', '+91.98765.43210'] } },
  { rule: 'SDK push token objects', changes: { [`${U}.$androidpush`]: [{ token: 't', provider: 'fcm', device_id: null, bundle_id: 'com.x' }] } },
  { rule: 'web push subscription with extra fields', changes: { [`${U}.$webpush[0].expirationTime`]: null, [`${U}.$webpush[0].token`]: 'abc' } },
  { rule: 'slack channel_id alias (SDK schema)', changes: { [`${SLACK}[2]`]: { channel_id: 'C1', access_token: 'x' } } },
  { rule: 'slack entry with extra keys', changes: { [`${SLACK}[1].team_id`]: 'T1' } },
  { rule: 'slack entries without access_token (the SDKs save them so; the vendor bot token sends)', changes: { [`${SLACK}[0].access_token`]: REMOVE, [`${SLACK}[1].access_token`]: REMOVE, [`${SLACK}[2].access_token`]: REMOVE } },
  { rule: 'slack webhook entry with an access_token too', changes: { [`${SLACK}[3].access_token`]: 'x' } },
  { rule: 'time zones: UTC, Etc/*, legacy links, any case', changes: { [`${U}.$timezone`]: 'Etc/GMT+5', 'recipients[3].$timezone': 'Asia/Calcutta', [`${OBJ}.$timezone`]: 'utc' } },
  { rule: 'locales: underscore, script, numeric region', changes: { [`${U}.$locale`]: 'pt_BR', 'recipients[3].$locale': 'zh-Hant-TW', [`${OBJ}.$locale`]: 'es-419' } },
  { rule: 'extra properties of any JSON', changes: { [`${U}.plan`]: { tier: 'pro', seats: [1, 2] }, [`${OBJ}.size`]: 12, [`${U}.$preferred_language`]: 'en' } },
  { rule: 'object with only id and object_type', changes: { [OBJ]: { object_type: 'teams', id: 'eng' } } },
  { rule: 'object properties named like user fields', changes: { [`${OBJ}.distinct_id`]: 5, [`${OBJ}.is_transient`]: 'x' } },
];

describe('validateTrigger: recipients', () => {
  it.each(failing)('rejects: $rule → $paths', ({ changes, paths }) => {
    expect(pathsAfter(validateTrigger, sampleTrigger, changes)).toEqual([...paths].sort());
  });

  it.each(passing)('accepts: $rule', ({ changes }) => {
    expect(pathsAfter(validateTrigger, sampleTrigger, changes)).toEqual([]);
  });

  it('normalises each kind of recipient for fan-out', () => {
    const result = validateTrigger(sampleTrigger());
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const [bare, full, transient, chat, object] = result.value.recipients;
    expect(bare).toEqual({ kind: 'user', distinct_id: 'user-1', is_transient: false, inline: false, channels: {}, properties: {} });
    expect(full).toEqual({
      kind: 'user',
      distinct_id: 'user-2',
      is_transient: false,
      inline: true,
      channels: {
        email: ['jane@example.com'],
        sms: ['+14155550100'],
        whatsapp: ['+14155550100'],
        inbox: ['inbox-token'],
        androidpush: [{ token: 'fcm-token' }],
        iospush: [{ token: 'apns-token' }],
        webpush: [{ endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: { p256dh: 'BNJxw', auth: 'tBH' } }],
      },
      only_channels: ['email', 'slack'],
      timezone: 'America/New_York',
      locale: 'en_GB',
      context_tenant_id: 'acme',
      properties: { plan: 'pro' },
    });
    expect(transient).toEqual({ kind: 'user', distinct_id: null, is_transient: true, inline: true, channels: { email: ['guest@example.com'] }, properties: {} });
    expect(chat.channels).toEqual({
      slack: [
        { form: 'email', email: 'jane@example.com', access_token: 'xoxb-1' },
        { form: 'user_id', user_id: 'U0123', access_token: 'xoxb-1' },
        { form: 'channel', channel: 'C0123', access_token: 'xoxb-1' },
        { form: 'incoming_webhook', incoming_webhook: { url: 'https://hooks.slack.com/services/T/B/X' } },
      ],
      ms_teams: [
        { form: 'conversation', tenant_id: 'tid', service_url: 'https://smba.trafficmanager.net/amer', conversation_id: '19:abc' },
        { form: 'user', tenant_id: 'tid', service_url: 'https://smba.trafficmanager.net/amer', user_id: '29:abc' },
        { form: 'incoming_webhook', incoming_webhook: { url: 'https://example.webhook.office.com/webhookb2/X' } },
      ],
    });
    expect(object).toEqual({
      kind: 'object',
      object_type: 'teams',
      id: 'engineering',
      inline: true,
      channels: { email: ['devs@example.com'] },
      properties: { department: 'Engineering' },
    });
  });

  it('normalises shorthands and aliases to the list and form shapes', () => {
    const result = validateTrigger({
      workflow: 'w',
      recipients: [{ distinct_id: 'u', $email: 'a@example.com', $iospush: { token: 't', provider: 'apns', device_id: null }, $slack: { channel_id: 'C9', access_token: 'x' } }],
    });
    expect(result.ok && result.value.recipients[0].channels).toEqual({
      email: ['a@example.com'],
      iospush: [{ token: 't', provider: 'apns' }],
      slack: [{ form: 'channel', channel: 'C9', access_token: 'x' }],
    });
  });
});
