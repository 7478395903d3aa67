/** A live category document as management-api publishes it, covering every default and feature the records show. */
export const SAMPLE_CATEGORIES = {
  root_categories: [
    {
      root_category: 'system',
      sections: [
        {
          name: 'Security',
          tags: ['admin'],
          categories: [{ category: 'security-alerts', name: 'Security alerts', default_preference: 'cant_unsubscribe', default_mandatory_channels: ['email'] }],
        },
      ],
    },
    {
      root_category: 'transactional',
      sections: [
        {
          name: 'Updates',
          description: 'What changes',
          categories: [
            {
              category: 'status-updates',
              name: 'Status updates',
              description: 'When a status changes',
              default_preference: 'opt_in',
              tags: ['ops'],
              digest_schedule_options: {
                options: [
                  { id: 'instant', label: 'Instantly', frequency: 'instantly', interval: 1, is_default: true },
                  { id: 'daily', label: 'Daily', frequency: 'daily', interval: 1, time: { edit_policy: 'editable', default_value: '09:00' }, is_default: false },
                ],
              },
              properties: [
                { key: 'threshold', label: 'Threshold', value_type: 'number', default_value: 10, is_optional: false, edit_policy: 'editable' },
                { key: 'region', label: 'Region', value_type: 'string', default_value: 'eu', is_optional: true, edit_policy: 'locked' },
              ],
            },
          ],
        },
      ],
    },
    {
      root_category: 'promotional',
      sections: [{ name: 'Marketing', categories: [{ category: 'newsletter', name: 'Newsletter', default_preference: 'opt_out' }] }],
    },
  ],
};
