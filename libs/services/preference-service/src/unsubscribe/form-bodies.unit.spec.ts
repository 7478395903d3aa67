import { FORM_BODIES, formFields } from './form-bodies';

const multipart = (parts: Array<[string, string]>, newline = '\r\n'): string =>
  parts.map(([name, value]) => `--XyZ${newline}Content-Disposition: form-data; name="${name}"${newline}${newline}${value}${newline}`).join('') + `--XyZ--${newline}`;

describe('unsubscribe form bodies', () => {
  it('reads urlencoded and multipart forms alike, a repeated name as a list', () => {
    expect(formFields('List-Unsubscribe=One-Click')).toEqual({ 'List-Unsubscribe': 'One-Click' });
    expect(formFields(multipart([['List-Unsubscribe', 'One-Click']]))).toEqual({ 'List-Unsubscribe': 'One-Click' });
    expect(formFields(multipart([['List-Unsubscribe', 'One-Click']], '\n'))).toEqual({ 'List-Unsubscribe': 'One-Click' });
    expect(formFields('shown=news&shown=billing&subscribed=news')).toEqual({ shown: ['news', 'billing'], subscribed: 'news' });
    expect(formFields(multipart([['shown', 'news'], ['shown', 'a b']]))).toEqual({ shown: ['news', 'a b'] });
    const hostile = formFields('__proto__=x');
    expect([Object.getPrototypeOf(hostile), Object.keys(hostile)]).toEqual([Object.prototype, ['__proto__']]);
    expect(formFields('')).toEqual({});
  });

  it("takes RFC 8058's one-click body, as a form or a multipart part, and nothing else", () => {
    expect(FORM_BODIES.oneClick.parse(formFields('List-Unsubscribe=One-Click')).ok).toBe(true);
    expect(FORM_BODIES.oneClick.parse(formFields(`--b\r\nContent-Disposition: form-data; name=List-Unsubscribe\r\n\r\nOne-Click`)).ok).toBe(true);
    for (const refused of ['', 'List-Unsubscribe=Yes', 'unsubscribe=One-Click', multipart([['Other', 'One-Click']])]) expect(FORM_BODIES.oneClick.parse(formFields(refused)).ok).toBe(false);
  });

  it("takes the preference page's form with one or many categories", () => {
    expect(FORM_BODIES.preferencePage.parse(formFields('shown=news&subscribed=news'))).toEqual({ ok: true, value: { shown: 'news', subscribed: 'news' } });
    expect(FORM_BODIES.preferencePage.parse(formFields(''))).toEqual({ ok: true, value: {} });
  });
});
