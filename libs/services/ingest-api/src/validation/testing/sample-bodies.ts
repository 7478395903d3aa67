/**
 * Valid bodies that use every rule of interface 2.1 once, the base of the table-driven
 * tests: each case changes one field and names the path(s) it expects reported.
 * recipients[1] is a full inline user, [2] transient, [3] holds every Slack and MS Teams
 * form, [4] is an object recipient.
 */
export function sampleTrigger(): Record<string, unknown> {
  return {
    workflow: 'order-shipped_v2',
    tenant_id: 'acme',
    $idempotency_key: 'order-1234',
    actor: { distinct_id: 'admin-1', name: 'Ada', $context: { tenant_id: 'acme' } },
    recipients: [
      'user-1',
      {
        distinct_id: 'user-2',
        $email: ['jane@example.com'],
        $sms: ['+14155550100'],
        $whatsapp: ['+14155550100'],
        $inbox: ['inbox-token'],
        $androidpush: ['fcm-token'],
        $iospush: ['apns-token'],
        $webpush: [{ endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: { p256dh: 'BNJxw', auth: 'tBH' } }],
        $channels: ['email', 'slack'],
        $timezone: 'America/New_York',
        $locale: 'en_GB',
        $context: { tenant_id: 'acme' },
        plan: 'pro',
      },
      { is_transient: true, $email: ['guest@example.com'] },
      {
        distinct_id: 'user-4',
        $slack: [
          { email: 'jane@example.com', access_token: 'xoxb-1' },
          { user_id: 'U0123', access_token: 'xoxb-1' },
          { channel: 'C0123', access_token: 'xoxb-1' },
          { incoming_webhook: { url: 'https://hooks.slack.com/services/T/B/X' } },
        ],
        $ms_teams: [
          { tenant_id: 'tid', service_url: 'https://smba.trafficmanager.net/amer', conversation_id: '19:abc' },
          { tenant_id: 'tid', service_url: 'https://smba.trafficmanager.net/amer', user_id: '29:abc' },
          { incoming_webhook: { url: 'https://example.webhook.office.com/webhookb2/X' } },
        ],
      },
      { object_type: 'teams', id: 'engineering', $email: ['devs@example.com'], department: 'Engineering' },
    ],
    data: {
      order_id: 1234,
      items: [{ sku: 'a', qty: 2 }],
      $attachments: [
        { url: 'https://example.com/invoice.pdf', filename: 'invoice.pdf', ignore_if_error: true },
        { data: 'SGVsbG8=', filename: 'hello.txt', contentType: 'text/plain' },
      ],
    },
  };
}

export function sampleEvent(): Record<string, unknown> {
  return {
    distinct_id: 'user-1',
    event: 'ON SHIPMENT ARRIVAL',
    properties: { amount: '3780$', vehicle: 'Truck', $attachments: [{ url: 'https://example.com/a.pdf' }] },
    tenant_id: 'acme',
    $idempotency_key: 'evt-1',
  };
}
