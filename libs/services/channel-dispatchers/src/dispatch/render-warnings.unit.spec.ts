import { TemplateEngine, renderContent } from '@herald/rendering';
import { MAX_DELIVERY_WARNINGS, renderWarnings } from './render-warnings';

describe('renderWarnings', () => {
  it("names each placeholder the data had no value for, by field, from the renderer's own report", () => {
    const rendered = renderContent(new TemplateEngine(), 'email', { subject: 'Welcome, {{name}}', text: 'Hi {{name}}, your plan is {{plan}} ({{$recipient.city}})' }, { plan: 'pro' });
    expect(rendered.ok).toBe(true);
    const warnings = renderWarnings(rendered.ok ? rendered.missingVariables : []);
    expect(warnings).toHaveLength(3);
    expect(warnings).toEqual(
      expect.arrayContaining([
        { code: 'missing_variable', field: 'subject', variable: 'name' },
        { code: 'missing_variable', field: 'text', variable: 'name' },
        { code: 'missing_variable', field: 'text', variable: '$recipient.city' },
      ]),
    );
  });

  it('tells a missing translation key from a missing variable', () => {
    expect(renderWarnings(['text: t "greeting"', 'title: name'])).toEqual([
      { code: 'missing_translation', field: 'text', key: 'greeting' },
      { code: 'missing_variable', field: 'title', variable: 'name' },
    ]);
  });

  it('has none when nothing is missing, names a repeat once, and keeps at most the cap', () => {
    expect(renderWarnings([])).toEqual([]);
    expect(renderWarnings(['text: name', 'text: name'])).toEqual([{ code: 'missing_variable', field: 'text', variable: 'name' }]);
    expect(renderWarnings(Array.from({ length: MAX_DELIVERY_WARNINGS + 5 }, (_, index) => `text: v${index}`))).toHaveLength(MAX_DELIVERY_WARNINGS);
  });
});
