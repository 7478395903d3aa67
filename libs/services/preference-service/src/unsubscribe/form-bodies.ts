import { Static, Type } from '@sinclair/typebox';
import { OneOrMany } from '@herald/contracts';
import { audienceSchemas } from '../http/audience-schemas';

/**
 * The form bodies of the unsubscribe routes, each one schema (docs/architecture.md,
 * "Contracts") of the form's fields, as audience-openapi.ts shows them. The routes take
 * the form's text (UnsubscribeBodyParser), read its fields with `formFields` and validate
 * them themselves, since a refusal is a text or HTML answer a mail client or a person
 * reads, not a JSON 400.
 */

/** RFC 8058's one-click body. */
export const OneClickUnsubscribeSchema = Type.Object(
  { 'List-Unsubscribe': Type.Literal('One-Click') },
  { description: 'RFC 8058: `List-Unsubscribe=One-Click`, urlencoded or as the multipart part of that name' },
);

/** The hosted preference page's form. */
export const PreferencePageFormSchema = Type.Object(
  {
    shown: Type.Optional(OneOrMany(Type.String({ description: 'An editable category the page showed' }))),
    subscribed: Type.Optional(OneOrMany(Type.String({ description: 'A category whose box was checked' }))),
  },
  { description: 'Each category in `shown` is subscribed when it is also in `subscribed`, unsubscribed otherwise' },
);
export type PreferencePageForm = Static<typeof PreferencePageFormSchema>;

export const FORM_BODIES = {
  oneClick: audienceSchemas.parser(OneClickUnsubscribeSchema),
  preferencePage: audienceSchemas.parser(PreferencePageFormSchema),
} as const;

/** A form's fields by name, a repeated name giving the list of its values. */
export type FormFields = Readonly<Record<string, string | string[]>>;

/**
 * The fields of a posted form's text: multipart/form-data (each part's name and text;
 * the body starts with its boundary) or application/x-www-form-urlencoded.
 */
export function formFields(text: string): FormFields {
  const fields = new Map<string, string | string[]>();
  for (const [name, value] of text.startsWith('--') ? multipartEntries(text) : new URLSearchParams(text)) {
    const seen = fields.get(name);
    fields.set(name, seen === undefined ? value : [...[seen].flat(), value]);
  }
  return Object.fromEntries(fields);
}

/** The named parts of a multipart body, delimited by its first line (RFC 7578); an unclosed last part still counts. */
function multipartEntries(text: string): Array<[string, string]> {
  const boundary = text.split(/\r?\n/, 1)[0];
  const entries: Array<[string, string]> = [];
  for (const part of text.split(boundary).slice(1)) {
    if (part.startsWith('--')) break;
    const split = /\r?\n\r?\n/.exec(part);
    if (split === null) continue;
    const headers = part.slice(0, split.index);
    const name = /^content-disposition:[^\r\n]*?;\s*name="?([^";\r\n]*)"?/im.exec(headers)?.[1];
    if (name !== undefined) entries.push([name, part.slice(split.index + split[0].length).replace(/\r?\n$/, '')]);
  }
  return entries;
}
