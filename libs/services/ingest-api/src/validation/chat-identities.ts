import { EMAIL, HTTP_URL, StringFormat } from './formats';
import { Issues } from './issues';
import { ObjectReader } from './json-reader';
import { IncomingWebhook, MsTeamsIdentity, SlackIdentity } from '@herald/contracts';

/**
 * Slack and MS Teams entries are each exactly one of several forms (interface 2.1.1,
 * reference `oneOf`). The form is told by its identifying key; an entry naming the
 * keys of none or of several forms is reported at the entry (`recipients[3].$slack[0]`),
 * a form with a missing or wrong field at that field, with the form named.
 */
interface Form<TName extends string> {
  readonly name: TName;
  readonly label: string;
  /** Any of these keys selects the form. */
  readonly keys: readonly string[];
}

const SLACK_FORMS: readonly Form<SlackIdentity['form']>[] = [
  { name: 'email', label: 'Slack by email {email, access_token?}', keys: ['email'] },
  { name: 'user_id', label: 'Slack by member id {user_id, access_token?}', keys: ['user_id'] },
  // `channel_id` is what the SuprSend SDKs' own schema calls it; the reference says `channel`.
  { name: 'channel', label: 'Slack by channel {channel, access_token?}', keys: ['channel', 'channel_id'] },
  { name: 'incoming_webhook', label: 'Slack by incoming webhook {incoming_webhook: {url}}', keys: ['incoming_webhook'] },
];

const MS_TEAMS_FORMS: readonly Form<MsTeamsIdentity['form']>[] = [
  { name: 'conversation', label: 'MS Teams by conversation {tenant_id, service_url, conversation_id}', keys: ['conversation_id'] },
  { name: 'user', label: 'MS Teams by user {tenant_id, service_url, user_id}', keys: ['user_id'] },
  { name: 'incoming_webhook', label: 'MS Teams by incoming webhook {incoming_webhook: {url}}', keys: ['incoming_webhook'] },
];

export function readSlackEntry(value: unknown, path: string, issues: Issues): SlackIdentity | undefined {
  const entry = ObjectReader.of(value, path, issues);
  const form = entry === undefined ? undefined : pickForm(entry, SLACK_FORMS, 'Slack');
  if (entry === undefined || form === undefined) return undefined;
  const field = (key: string, format?: StringFormat): string | undefined => formField(entry, key, form.label, format);
  const token = readAccessToken(entry);
  switch (form.name) {
    case 'email': {
      const email = field('email', EMAIL);
      return email === undefined || !token.ok ? undefined : withToken({ form: 'email', email }, token.value);
    }
    case 'user_id': {
      const user_id = field('user_id');
      return user_id === undefined || !token.ok ? undefined : withToken({ form: 'user_id', user_id }, token.value);
    }
    case 'channel': {
      const channel = field(entry.has('channel') ? 'channel' : 'channel_id');
      return channel === undefined || !token.ok ? undefined : withToken({ form: 'channel', channel }, token.value);
    }
    case 'incoming_webhook': {
      const incoming_webhook = readWebhook(entry, form.label);
      return incoming_webhook === undefined ? undefined : { form: 'incoming_webhook', incoming_webhook };
    }
  }
}

export function readMsTeamsEntry(value: unknown, path: string, issues: Issues): MsTeamsIdentity | undefined {
  const entry = ObjectReader.of(value, path, issues);
  const form = entry === undefined ? undefined : pickForm(entry, MS_TEAMS_FORMS, 'MS Teams');
  if (entry === undefined || form === undefined) return undefined;
  if (form.name === 'incoming_webhook') {
    const incoming_webhook = readWebhook(entry, form.label);
    return incoming_webhook === undefined ? undefined : { form: 'incoming_webhook', incoming_webhook };
  }
  const tenant_id = formField(entry, 'tenant_id', form.label);
  const service_url = formField(entry, 'service_url', form.label, HTTP_URL);
  if (form.name === 'conversation') {
    const conversation_id = formField(entry, 'conversation_id', form.label);
    if (tenant_id === undefined || service_url === undefined || conversation_id === undefined) return undefined;
    return { form: 'conversation', tenant_id, service_url, conversation_id };
  }
  const user_id = formField(entry, 'user_id', form.label);
  if (tenant_id === undefined || service_url === undefined || user_id === undefined) return undefined;
  return { form: 'user', tenant_id, service_url, user_id };
}

/**
 * `access_token` is optional: the SDKs save Slack members and channels without one
 * (`addSlackEmail`, `addSlackUserid`, `add_slack`), and the dispatcher then uses the
 * workspace's Slack vendor bot token. When sent it must be a non-blank string.
 */
function readAccessToken(entry: ObjectReader): { ok: true; value: string | undefined } | { ok: false } {
  if (!entry.has('access_token')) return { ok: true, value: undefined };
  const value = entry.string('access_token', { nonBlank: true });
  return value === undefined ? { ok: false } : { ok: true, value };
}

function withToken<T extends SlackIdentity>(identity: T, accessToken: string | undefined): T {
  return accessToken === undefined ? identity : { ...identity, access_token: accessToken };
}

/** The one form whose identifying key the entry holds; reports at the entry when none or several. */
function pickForm<TName extends string>(entry: ObjectReader, forms: readonly Form<TName>[], channel: string): Form<TName> | undefined {
  const matching = forms.filter((form) => form.keys.some((key) => entry.has(key)));
  if (matching.length === 1) return matching[0];
  const all = forms.map((form) => form.label).join('; ');
  const found = matching.length === 0 ? 'it matches none' : `it matches several: ${matching.map((form) => form.name).join(', ')}`;
  entry.issues.add(entry.path, `must be exactly one ${channel} form (${all}); ${found}`);
  return undefined;
}

/** A required non-blank string of a form; the message names the form so the client sees which rule failed. */
function formField(entry: ObjectReader, key: string, label: string, format?: StringFormat): string | undefined {
  if (!entry.has(key)) {
    entry.report(key, `is required by the form ${label}`);
    return undefined;
  }
  return entry.string(key, { nonBlank: true, format });
}

function readWebhook(entry: ObjectReader, label: string): IncomingWebhook | undefined {
  const webhook = entry.object('incoming_webhook', true);
  if (webhook === undefined) return undefined;
  if (!webhook.has('url')) {
    webhook.report('url', `is required by the form ${label}`);
    return undefined;
  }
  const url = webhook.string('url', { format: HTTP_URL });
  return url === undefined ? undefined : { url };
}
