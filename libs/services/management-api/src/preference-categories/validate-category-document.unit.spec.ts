import { validateCategoryDocument } from './validate-category-document';

const valid = () => ({
  root_categories: [
    {
      root_category: 'transactional',
      sections: [
        {
          name: 'Task Updates',
          categories: [
            {
              category: 'tagged-to-me',
              name: 'Tagged to Me',
              default_preference: 'opt_in',
              default_opt_in_channels: ['email', 'inbox'],
              digest_schedule_options: {
                options: [
                  { id: 'instantly', label: 'Instantly', frequency: 'instantly', interval: 1, is_default: true },
                  {
                    id: 'daily',
                    label: 'Daily digest',
                    frequency: 'daily',
                    interval: 1,
                    time: { edit_policy: 'editable', default_value: '09:00' },
                    is_default: false,
                  },
                ],
              },
              properties: [{ key: 'project_id', label: 'Project', value_type: 'string', default_value: 'all', is_optional: true, edit_policy: 'editable' }],
            },
          ],
        },
      ],
    },
    {
      root_category: 'system',
      sections: [
        {
          name: 'Security',
          categories: [
            { category: 'password-reset', name: 'Password reset', default_preference: 'cant_unsubscribe', default_mandatory_channels: ['email'] },
          ],
        },
      ],
    },
  ],
});

type Doc = ReturnType<typeof valid>;
const category = (doc: Doc) => doc.root_categories[0].sections[0].categories[0] as Record<string, unknown>;
const prefix = 'root_categories[0].sections[0].categories[0]';

describe('validateCategoryDocument', () => {
  it('accepts a valid document and fills in the missing roots, in order', () => {
    const result = validateCategoryDocument(valid());
    expect(result.errors).toEqual([]);
    expect(result.document.root_categories.map((r) => r.root_category)).toEqual(['system', 'transactional', 'promotional']);
    expect(result.document.root_categories[2].sections).toEqual([]);
  });

  it.each<[string, (doc: Doc) => void, string]>([
    ['an unknown root', (d) => ((d.root_categories[0] as Record<string, unknown>).root_category = 'marketing'), 'root_categories[0].root_category: must be one of'],
    ['a repeated root', (d) => (d.root_categories[1].root_category = 'transactional'), 'root_categories[1].root_category: transactional appears more than once'],
    ['a section without a name', (d) => ((d.root_categories[0].sections[0] as Record<string, unknown>).name = ''), 'root_categories[0].sections[0].name: must be a non-empty string'],
    ['a category slug with capitals', (d) => (category(d).category = 'Tagged'), `${prefix}.category: must match`],
    ['a category slug used twice', (d) => (d.root_categories[1].sections[0].categories[0].category = 'tagged-to-me'), "root_categories[1].sections[0].categories[0].category: 'tagged-to-me' is already used"],
    ['a category without a name', (d) => delete category(d).name, `${prefix}.name: must be a non-empty string`],
    ['an unknown default preference', (d) => (category(d).default_preference = 'maybe'), `${prefix}.default_preference: must be one of opt_in, opt_out, cant_unsubscribe`],
    ['mandatory channels on an opt-in category', (d) => (category(d).default_mandatory_channels = ['email']), `${prefix}.default_mandatory_channels: is only allowed when default_preference is cant_unsubscribe`],
    ['an unknown mandatory channel', (d) => ((d.root_categories[1].sections[0].categories[0] as Record<string, unknown>).default_mandatory_channels = ['ms_teams']), 'root_categories[1].sections[0].categories[0].default_mandatory_channels[0]: must be one of'],
    ['an unknown opt-in channel', (d) => (category(d).default_opt_in_channels = ['pigeon']), `${prefix}.default_opt_in_channels[0]: must be one of`],
    ['a tag with spaces', (d) => (category(d).tags = ['two words']), `${prefix}.tags[0]: must be lowercase and hyphenated`],
    ['a schedule option of unknown frequency', (d) => ((category(d).digest_schedule_options as { options: Array<Record<string, unknown>> }).options[1].frequency = 'fortnightly'), `${prefix}.digest_schedule_options.options[1].frequency: must be one of`],
    ['a schedule option with interval 0', (d) => ((category(d).digest_schedule_options as { options: Array<Record<string, unknown>> }).options[1].interval = 0), `${prefix}.digest_schedule_options.options[1].interval: must be an integer of at least 1`],
    ['a schedule time that is not HH:MM', (d) => ((category(d).digest_schedule_options as { options: Array<Record<string, unknown>> }).options[1].time = { edit_policy: 'editable', default_value: '9am' }), `${prefix}.digest_schedule_options.options[1].time.default_value: must be a 24-hour time HH:MM`],
    ['schedule weekdays outside su..sa', (d) => ((category(d).digest_schedule_options as { options: Array<Record<string, unknown>> }).options[1].weekdays = { edit_policy: 'locked', default_value: ['xx'] }), `${prefix}.digest_schedule_options.options[1].weekdays.default_value: must be an array of`],
    ['two default schedule options', (d) => ((category(d).digest_schedule_options as { options: Array<Record<string, unknown>> }).options[1].is_default = true), `${prefix}.digest_schedule_options.options: exactly one option must be the default`],
    ['a property key that is not an identifier', (d) => ((category(d).properties as Array<Record<string, unknown>>)[0].key = 'project id'), `${prefix}.properties[0].key: must be an identifier`],
    ['a property default of the wrong type', (d) => ((category(d).properties as Array<Record<string, unknown>>)[0].default_value = 7), `${prefix}.properties[0].default_value: must be a string`],
    ['a property of unknown value type', (d) => ((category(d).properties as Array<Record<string, unknown>>)[0].value_type = 'date'), `${prefix}.properties[0].value_type: must be one of`],
    ['a property of unknown edit policy', (d) => ((category(d).properties as Array<Record<string, unknown>>)[0].edit_policy = 'sometimes'), `${prefix}.properties[0].edit_policy: must be one of editable, locked`],
  ])('rejects %s, naming the path', (_case, breakIt, expected) => {
    const doc = valid();
    breakIt(doc);
    const result = validateCategoryDocument(doc);
    expect(result.errors).toEqual([expect.stringContaining(expected)]);
  });

  it('reports every problem at once and keeps the document as sent', () => {
    const doc = valid();
    category(doc).default_preference = 'maybe';
    category(doc).name = '';
    const result = validateCategoryDocument(doc);
    expect(result.errors).toHaveLength(2);
    expect(result.document).toBe(doc);
  });

  it('accepts an empty draft: no roots yet, or only the fields GET answers', () => {
    for (const empty of [{}, { $schema: 'https://schema.suprsend.com/preference_category/v1/schema.json', version_no: 0, status: 'draft' }]) {
      const result = validateCategoryDocument(empty);
      expect(result.errors).toEqual([]);
      expect(result.document.root_categories.map((root) => [root.root_category, root.sections])).toEqual([
        ['system', []],
        ['transactional', []],
        ['promotional', []],
      ]);
    }
  });

  it('rejects a body without root_categories', () => {
    expect(validateCategoryDocument({ sections: [] }).errors).toEqual(['root_categories: must be an array']);
  });
});
