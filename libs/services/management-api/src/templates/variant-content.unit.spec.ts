import { CHANNELS } from '@herald/contracts';
import { CONTENT_RULES, validateContent } from './variant-content';

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
      { path: 'html', message: 'html or text is required' },
    ]);
    expect(validateContent('whatsapp', { template_name: 'x', language: 'en', parameters: ['a', 2] })).toEqual([
      { path: 'parameters[1]', message: 'must be a string' },
    ]);
    expect(validateContent('slack', { blocks: [] })).toEqual([{ path: 'blocks', message: 'must not be empty' }]);
    expect(validateContent('sms', { text: 'x'.repeat(1601) })).toEqual([{ path: 'text', message: 'must be at most 1600 characters' }]);
    expect(validateContent('inbox', [])).toEqual([{ path: '', message: 'must be an object' }]);
  });
});
