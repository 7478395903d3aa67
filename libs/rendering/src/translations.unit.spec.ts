import { renderContent } from './render-content';
import { TemplateEngine } from './template-engine';
import { LocaleTranslations, localeChain, translationScope } from './translations';

const engine = new TemplateEngine();
const translations: LocaleTranslations = {
  en: { greeting: 'Hello {{name}}', farewell: 'Goodbye', colour: 'color', 'task:created': 'Task created' },
  fr: { greeting: 'Bonjour {{name}}', farewell: 'Au revoir' },
  'fr-CA': { greeting: 'Allô {{name}}' },
};
const content = { subject: '{{t "greeting"}}', text: '{{t "farewell"}}, {{t "colour"}}, {{t "task:created"}}', html: '<p>{{t "greeting"}}</p>' };

function rendered(locale: string | undefined) {
  return renderContent(engine, 'email', content, { name: 'Zoé <z>' }, { translations: translationScope(translations, locale) });
}

describe('translations', () => {
  it('looks a key up in the locale, then its language, then the base language', () => {
    expect(localeChain('fr-CA')).toEqual(['fr-CA', 'fr', 'en']);
    expect(localeChain('fr_ca')).toEqual(['fr-ca', 'fr', 'en']);
    expect(localeChain(undefined)).toEqual(['en']);
    expect(rendered('fr-CA')).toMatchObject({
      ok: true,
      content: { subject: 'Allô Zoé <z>', text: 'Au revoir, color, Task created', html: '<p>Allô Zoé &lt;z&gt;</p>' },
      missingVariables: [],
    });
    expect(rendered('FR')).toMatchObject({ ok: true, content: { subject: 'Bonjour Zoé <z>', text: 'Au revoir, color, Task created' } });
    expect(rendered('de')).toMatchObject({ ok: true, content: { subject: 'Hello Zoé <z>', text: 'Goodbye, color, Task created' } });
  });

  it('renders a key no locale has as the key, and reports it with its field', () => {
    const result = renderContent(engine, 'sms', { body: '{{t "nowhere"}} {{t "farewell"}}' }, {}, { translations: translationScope(translations, 'fr') });
    expect(result).toEqual({ ok: true, content: { channel: 'sms', text: 'nowhere Au revoir' }, missingVariables: ['body: t "nowhere"'] });
    const strict = renderContent(engine, 'sms', { body: '{{t "nowhere"}}' }, {}, { strict: true, translations: translationScope(translations, 'fr') });
    expect(strict).toEqual({ ok: false, reason: 'strict template: the data has no value for body: t "nowhere"' });
    // Without translations at all (none committed), every key is missing, never empty.
    expect(renderContent(engine, 'sms', { body: '{{t "farewell"}}' }, {})).toMatchObject({ ok: true, content: { text: 'farewell' }, missingVariables: ['body: t "farewell"'] });
  });
});
