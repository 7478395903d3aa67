import { CHANNELS } from '@herald/contracts';
import { CONTENT_RULES, mjmlErrors, validateContent } from './variant-content';

describe('variant content per channel', () => {
  it('has rules for every channel', () => {
    expect(Object.keys(CONTENT_RULES).sort()).toEqual([...CHANNELS].sort());
  });

  it.each([
    ['email', { subject: 'Hi {{name}}', text: 'Body' }],
    ['sms', { text: 'Code {{code}}' }],
    ['whatsapp', { template_name: 'otp', language: 'en_US' }],
    ['androidpush', { title: 'T', body: 'B', data: { k: 'v' } }],
    ['iospush', { title: 'T', body: 'B' }],
    ['webpush', { title: 'T', body: 'B', icon: 'https://x/i.png' }],
    ['slack', { text: 'Hi' }],
    ['ms_teams', { text: 'Hi' }],
    ['inbox', { body: 'Hi' }],
  ] as const)('accepts minimal %s content', (channel, content) => {
    expect(validateContent(channel, content)).toEqual([]);
  });

  it('reports every problem by path', () => {
    expect(validateContent('email', { subject: 3, from: '', extra: true })).toEqual([
      { path: 'extra', message: 'is not a field of email content' },
      { path: 'subject', message: 'must be a string' },
      { path: 'from', message: 'must not be empty' },
      { path: 'html', message: 'html or mjml or text is required' },
    ]);
    expect(validateContent('whatsapp', { template_name: 'x', language: 'en', parameters: ['a', 2] })).toEqual([
      { path: 'parameters[1]', message: 'must be a string' },
    ]);
    expect(validateContent('slack', { blocks: [] })).toEqual([{ path: 'blocks', message: 'must not be empty' }]);
    expect(validateContent('sms', { text: 'x'.repeat(1601) })).toEqual([{ path: 'text', message: 'must be at most 1600 characters' }]);
    expect(validateContent('inbox', [])).toEqual([{ path: '', message: 'must be an object' }]);
  });

  it('takes MJML for email instead of html, not both, and reports what MJML says of it by line', async () => {
    const mjml = '<mjml><mj-body><mj-section><mj-column><mj-text>Hi {{name}}</mj-text></mj-column></mj-section></mj-body></mjml>';
    expect(validateContent('email', { subject: 'S', mjml })).toEqual([]);
    expect(await mjmlErrors('email', { subject: 'S', mjml })).toEqual([]);
    expect(validateContent('email', { subject: 'S', mjml, html: '<p>x</p>' })).toEqual([{ path: 'mjml', message: 'only one of html and mjml may be given' }]);
    expect(await mjmlErrors('email', { subject: 'S', mjml: '<mjml><mj-body>\n<mj-sektion></mj-sektion></mj-body></mjml>' })).toEqual([
      { path: 'mjml', message: "line 2: Element mj-sektion doesn't exist or is not registered" },
    ]);
    expect(await mjmlErrors('sms', { mjml: '<mj-sektion>' })).toEqual([]);
  });

  it("takes SuprSend's inbox editor fields, and names each wrong one", () => {
    const suprsend = {
      header: 'Friend request',
      body: '{{actor}} wants to connect',
      avatar: { image_url: '{{avatar}}', url: 'https://acme.test/u' },
      subtext: { text: '@{{handle}}', url: 'https://acme.test/u' },
      buttons: [{ text: 'Accept', url: 'https://acme.test/a' }],
      tags: ['mentions'],
      importance: 'high',
      open_in_new_tab: false,
      is_pinned: true,
      is_expiry_enabled: true,
      expiry: { format: 'relative', expiry_type: 'fixed', value: '7d', is_expiry_visible: true },
      extra_data: '{"k": 1}',
    };
    expect(validateContent('inbox', suprsend)).toEqual([]);
    expect(validateContent('inbox', { body: 'b', avatar: 'https://a.test/a.png', buttons: [] })).toEqual([]);
    expect(validateContent('inbox', { body: 'b', is_pinned: 'yes', buttons: [{}, {}, {}], tags: [1], avatar: 3 })).toEqual([
      { path: 'avatar', message: 'must be a string or an object' },
      { path: 'buttons', message: 'must hold at most 2 items' },
      { path: 'tags[0]', message: 'must be a string' },
      { path: 'is_pinned', message: 'must be true or false' },
    ]);
  });
});
