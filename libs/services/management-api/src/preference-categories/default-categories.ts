import { CategoryDocument } from './category-document';

/**
 * The categories every workspace starts with, live, so a first workflow can name one
 * without writing a category document first. One per root, named like the root: the
 * slugs SuprSend users write (`category: "transactional"`). `system` cannot be
 * unsubscribed from (security and account mail); the others are opt-in by default.
 */
export const DEFAULT_CATEGORY_DOCUMENT: CategoryDocument = {
  root_categories: [
    {
      root_category: 'system',
      sections: [{ name: 'System', categories: [{ category: 'system', name: 'System', description: 'Security and account notices', default_preference: 'cant_unsubscribe' }] }],
    },
    {
      root_category: 'transactional',
      sections: [{ name: 'Transactional', categories: [{ category: 'transactional', name: 'Transactional', description: 'Messages about what the user did', default_preference: 'opt_in' }] }],
    },
    {
      root_category: 'promotional',
      sections: [{ name: 'Promotional', categories: [{ category: 'promotional', name: 'Promotional', description: 'Newsletters and offers', default_preference: 'opt_in' }] }],
    },
  ],
};
