/** The channels of interface section 1, in its order. */
export const CHANNELS = ['email', 'sms', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams', 'webpush', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];
