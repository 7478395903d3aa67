import { createHash } from 'node:crypto';

/** A category as the page shows it (a subset of the preference record). */
export interface PageCategory {
  readonly category: string;
  readonly name: string;
  readonly description: string | null;
  readonly preference: 'opt_in' | 'opt_out';
  readonly is_editable: boolean;
}

export interface PageSection {
  readonly name: string | null;
  readonly description: string | null;
  readonly subcategories: readonly PageCategory[];
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:34rem;margin:2rem auto;background:#fff;padding:1.5rem 2rem;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:1.3rem;margin:0 0 1rem}h2{font-size:1rem;margin:1.5rem 0 .25rem}
label{display:flex;gap:.6rem;align-items:flex-start;padding:.5rem 0;border-top:1px solid #eceef2}
small{display:block;color:#5b6475}.note{background:#eef6ee;padding:.6rem .8rem;border-radius:6px}
button{margin-top:1.2rem;font:inherit;padding:.5rem 1.2rem;border:0;border-radius:6px;background:#2f5bd3;color:#fff}`;

/**
 * The page's Content-Security-Policy: nothing may load (no script, image, font or frame),
 * its one style block is allowed by its hash, and its form posts only back to Herald.
 */
export const PREFERENCE_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * The hosted preference page of a List-Unsubscribe link: the user's categories, each a
 * checkbox (checked: subscribed), those that cannot be unsubscribed shown checked and
 * disabled, and one form that posts them back. Server-rendered, no script, no external
 * asset; every text from the workspace is escaped.
 */
export function preferencePage(page: { readonly sections: readonly PageSection[]; readonly formAction: string; readonly note?: string }): string {
  const sections = page.sections
    .filter((section) => section.subcategories.length > 0)
    .map((section) => {
      const heading = section.name ? `<h2>${escape(section.name)}</h2>${section.description ? `<small>${escape(section.description)}</small>` : ''}` : '';
      const rows = section.subcategories.map((category) => {
        const described = category.description ? `<small>${escape(category.description)}</small>` : '';
        const checked = category.preference === 'opt_in' ? ' checked' : '';
        // A disabled box is not submitted: only editable categories are listed in `shown`, so the save never touches the others.
        const input = category.is_editable
          ? `<input type="hidden" name="shown" value="${escape(category.category)}"><input type="checkbox" name="subscribed" value="${escape(category.category)}"${checked}>`
          : `<input type="checkbox" disabled${checked}>`;
        return `<label>${input}<span>${escape(category.name)}${described}</span></label>`;
      });
      return `${heading}${rows.join('')}`;
    });
  const note = page.note ? `<p class="note" role="status">${escape(page.note)}</p>` : '';
  return document(
    'Notification preferences',
    `<h1>Notification preferences</h1>${note}<form method="post" action="${escape(page.formAction)}">${sections.join('')}<button type="submit">Save</button></form>`,
  );
}

/** A page with one message (an expired or forged link, a saved choice). */
export function messagePage(title: string, text: string): string {
  return document(title, `<h1>${escape(title)}</h1><p>${escape(text)}</p>`);
}

function document(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escape(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
