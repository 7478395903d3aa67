import { renderContent } from './render-content';
import { TemplateEngine } from './template-engine';

const engine = new TemplateEngine();
const data = {
  name: 'Ada <admin>',
  plan: 'pro',
  $recipient: { distinct_id: 'u1', first_name: 'Ada' },
  $actor: { name: 'Bob' },
  $tenant: { name: 'Acme' },
  $batched_events: [{ item: 'a' }, { item: 'b' }],
  $batched_events_count: 2,
};

describe('renderContent', () => {
  it('renders email subject as text and html escaped, with the namespaces of render_data', () => {
    const result = renderContent(engine, 'email', {
      subject: 'Hi {{name}} from {{$tenant.name}}',
      html: '<p>{{name}} {{#each $batched_events}}{{item}}{{/each}} ({{$batched_events_count}})</p>',
      text: '{{$actor.name}} invited {{$recipient.first_name}}',
      reply_to: 'support@acme.test',
    }, data);
    expect(result).toMatchObject({
      ok: true,
      content: {
        channel: 'email',
        subject: 'Hi Ada <admin> from Acme',
        html: '<p>Ada &lt;admin&gt; ab (2)</p>',
        text: 'Bob invited Ada',
        replyTo: 'support@acme.test',
      },
    });
  });

  it('fails a message whose template does not compile, naming the field', () => {
    const result = renderContent(engine, 'email', { subject: 'Hi {{#if name}}', text: 'x' }, data);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/template error in subject/);
  });

  it('fails a message whose template calls an unknown helper at render time', () => {
    const result = renderContent(engine, 'sms', { text: '{{shout name}}' }, data);
    expect(!result.ok && result.reason).toMatch(/template error in text: Missing helper: "shout"/);
  });

  it('fails content missing what the channel needs', () => {
    expect(renderContent(engine, 'email', { subject: 'x' }, data)).toEqual({ ok: false, reason: 'template error in html: email content needs html or text' });
    expect(renderContent(engine, 'androidpush', { title: '{{missing}}', body: 'b' }, data)).toEqual({
      ok: false,
      reason: 'template error in title: is required and rendered empty',
    });
  });

  it('renders whatsapp templates with parameters', () => {
    expect(renderContent(engine, 'whatsapp', { template: 'order_update', language: 'en_US', parameters: ['{{plan}}', '{{$actor.name}}'] }, data)).toMatchObject({
      ok: true,
      content: { channel: 'whatsapp', kind: 'template', name: 'order_update', language: 'en_US', parameters: ['pro', 'Bob'] },
    });
  });

  it('renders whatsapp template components as the content gives them, their strings as templates', () => {
    const components = [{ type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.test/{{plan}}.png' } }] }, { type: 'body', parameters: [{ type: 'text', text: '{{name}}' }] }];
    expect(renderContent(engine, 'whatsapp', { template: 'order_update', components }, data)).toMatchObject({
      ok: true,
      content: {
        kind: 'template',
        components: [{ type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.test/pro.png' } }] }, { type: 'body', parameters: [{ type: 'text', text: expect.any(String) }] }],
      },
    });
    expect(renderContent(engine, 'whatsapp', { template: 'order_update', components: { type: 'body' } }, data)).toMatchObject({ ok: false, reason: expect.stringContaining('components') });
  });

  it('renders push with a flat string data map and deep link', () => {
    expect(renderContent(engine, 'iospush', { title: 'T {{plan}}', body: 'B', deep_link: 'app://x/{{$recipient.distinct_id}}', data: { plan: '{{plan}}', n: 2 } }, data)).toMatchObject({
      ok: true,
      content: { channel: 'iospush', title: 'T pro', body: 'B', deepLink: 'app://x/u1', data: { plan: 'pro', n: '2' } },
    });
  });

  it('renders slack blocks given as JSON or as a template string that renders to JSON', () => {
    const asJson = renderContent(engine, 'slack', { text: 'Hi {{name}}', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*{{plan}}*' } }] }, data);
    const asString = renderContent(engine, 'slack', { text: 'Hi', blocks: '[{"type":"section","text":{"type":"mrkdwn","text":"*{{plan}}*"}}]' }, data);
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*pro*' } }];
    expect(asJson).toMatchObject({ ok: true, content: { channel: 'slack', text: 'Hi Ada <admin>', blocks } });
    expect(asString).toMatchObject({ ok: true, content: { channel: 'slack', text: 'Hi', blocks } });
    expect(renderContent(engine, 'slack', { blocks: '{{plan}}' }, data)).toEqual({ ok: false, reason: 'template error in blocks: did not render to valid JSON' });
  });

  it('renders ms teams cards, webpush and inbox', () => {
    expect(renderContent(engine, 'ms_teams', { text: 't', card: { type: 'AdaptiveCard', body: [{ type: 'TextBlock', text: '{{plan}}' }] } }, data)).toMatchObject({
      ok: true,
      content: { channel: 'ms_teams', text: 't', card: { type: 'AdaptiveCard', body: [{ type: 'TextBlock', text: 'pro' }] } },
    });
    expect(renderContent(engine, 'webpush', { title: 'W', body: '{{plan}}', url: 'https://x.test/{{plan}}' }, data)).toMatchObject({
      ok: true,
      content: { channel: 'webpush', title: 'W', body: 'pro', url: 'https://x.test/pro' },
    });
    expect(renderContent(engine, 'inbox', { title: 'Hello {{$recipient.first_name}}', body: '{{plan}}', avatar: 'https://a.test/a.png', action_url: '/x' }, data)).toMatchObject({
      ok: true,
      content: { channel: 'inbox', title: 'Hello Ada', body: 'pro', avatar: 'https://a.test/a.png', actionUrl: '/x' },
    });
  });

  it("renders SuprSend's inbox content: avatar and subtext objects, buttons, tags, pin, expiry and extra data", () => {
    const content = {
      header: 'Friend request',
      body: '{{$actor.name}} wants to connect',
      action_url: 'https://acme.test/r/{{plan}}',
      open_in_new_tab: true,
      avatar: { image_url: 'https://cdn.test/{{plan}}.png', url: 'https://acme.test/u' },
      subtext: { text: '@{{plan}}', url: 'https://acme.test/s' },
      buttons: [
        { text: 'Accept', url: 'https://acme.test/accept', open_in_new_tab: true },
        { text: 'Decline', url: 'https://acme.test/decline' },
      ],
      tags: ['mentions', '{{plan}}', ''],
      importance: 'high',
      is_pinned: true,
      is_expiry_enabled: true,
      expiry: { format: 'relative', expiry_type: 'fixed', value: '2d 6h 30m', is_expiry_visible: true },
      extra_data: '{"deal":"{{plan}}"}',
    };
    expect(renderContent(engine, 'inbox', content, data)).toEqual({
      ok: true,
      missingVariables: [],
      content: {
        channel: 'inbox',
        title: 'Friend request',
        body: 'Bob wants to connect',
        avatar: 'https://cdn.test/pro.png',
        avatarUrl: 'https://acme.test/u',
        actionUrl: 'https://acme.test/r/pro',
        openInNewTab: true,
        subtext: { text: '@pro', url: 'https://acme.test/s' },
        buttons: [
          { text: 'Accept', url: 'https://acme.test/accept', openInNewTab: true },
          { text: 'Decline', url: 'https://acme.test/decline' },
        ],
        tags: ['mentions', 'pro'],
        pinned: true,
        expiry: { afterSeconds: 2 * 86_400 + 6 * 3600 + 30 * 60, visible: true },
        extraData: '{"deal":"pro"}',
        importance: 'high',
      },
    });
    const expiring = (expiry: Record<string, unknown>, enabled: unknown = true) => renderContent(engine, 'inbox', { body: 'b', is_expiry_enabled: enabled, expiry }, { ...data, at: '2031-01-02T03:04:05Z' });
    expect(expiring({ format: 'absolute', value: '{{at}}' })).toMatchObject({ content: { expiry: { at: '2031-01-02T03:04:05.000Z', visible: false } } });
    expect(expiring({ expiry_type: 'dynamic', value: '3600' })).toMatchObject({ content: { expiry: { afterSeconds: 3600, visible: false } } });
    expect(expiring({ value: '7d' }, false)).toMatchObject({ content: { body: 'b' } });
    expect((expiring({ value: '7d' }, false) as { content: Record<string, unknown> }).content.expiry).toBeUndefined();
    expect(expiring({ format: 'relative', value: 'soon' })).toEqual({ ok: false, reason: expect.stringContaining('expiry.value') });
    expect(renderContent(engine, 'inbox', { body: 'b', buttons: [{ text: 'a', url: 'u' }, { text: 'b', url: 'u' }, { text: 'c', url: 'u' }] }, data)).toEqual({ ok: false, reason: expect.stringContaining('at most 2 buttons') });
    expect(renderContent(engine, 'inbox', { body: 'b', buttons: [{ text: 'a' }] }, data)).toEqual({ ok: false, reason: expect.stringContaining('buttons[0]') });
  });

  it('reports the placeholders the data has no value for, by field, and renders them empty', () => {
    const result = renderContent(engine, 'email', { subject: 'Hi {{name}}, {{nickname}}', text: 'Plan {{plan}}: {{$recipient.last_name}} {{#each $batched_events}}{{gone}}{{/each}}' }, data);
    expect(result).toEqual({
      ok: true,
      content: { channel: 'email', subject: 'Hi Ada <admin>, ', text: 'Plan pro:  ' },
      missingVariables: ['text: $recipient.last_name', 'subject: nickname'],
    });
    expect(renderContent(engine, 'sms', { text: 'Hi {{name}} {{$actor.name}}' }, data)).toEqual({ ok: true, content: { channel: 'sms', text: 'Hi Ada <admin> Bob' }, missingVariables: [] });
  });

  it('refuses, for a strict template, content using a variable the data has no value for, naming each field and path', () => {
    expect(renderContent(engine, 'email', { subject: 'Hi {{name}}, {{nickname}}', text: 'Plan {{plan}}: {{$recipient.last_name}}' }, data, { strict: true })).toEqual({
      ok: false,
      reason: 'strict template: the data has no value for text: $recipient.last_name, subject: nickname',
    });
    // Everything present: a strict template renders as any other.
    expect(renderContent(engine, 'sms', { text: 'Hi {{name}} {{$actor.name}}' }, data, { strict: true })).toEqual({ ok: true, content: { channel: 'sms', text: 'Hi Ada <admin> Bob' }, missingVariables: [] });
    expect(renderContent(engine, 'sms', { text: 'Hi {{nickname}}' }, data, { strict: false })).toMatchObject({ ok: true, missingVariables: ['text: nickname'] });
  });

  it('does not expose prototype properties to templates', () => {
    expect(renderContent(engine, 'sms', { text: '[{{constructor.name}}]' }, data)).toMatchObject({ ok: true, content: { channel: 'sms', text: '[]' } });
  });
});
