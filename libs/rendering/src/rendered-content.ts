/** What a vendor sends, per channel, after the template variant's content was rendered. */

export interface EmailContent {
  readonly channel: 'email';
  readonly subject: string;
  readonly html?: string;
  readonly text?: string;
  /** Overrides the vendor's configured sender. */
  readonly from?: string;
  readonly replyTo?: string;
  /** The command's attachments, loaded by the dispatcher before the send (not rendered). */
  readonly attachments?: readonly LoadedAttachment[];
  /** Headers the dispatcher adds (`List-Unsubscribe`, `List-Unsubscribe-Post`); every email vendor sends them as given. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** An e-mail attachment ready to send: fetched (URL form) or decoded (inline form). */
export interface LoadedAttachment {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;
}

export interface SmsContent {
  readonly channel: 'sms';
  readonly text: string;
}

export type WhatsappContent =
  | {
      readonly channel: 'whatsapp';
      readonly kind: 'template';
      readonly name: string;
      readonly language: string;
      /** The body's text parameters, in order: a shorthand for one `body` component. */
      readonly parameters: readonly string[];
      /** Meta's template components (header, body, buttons) as the content gives them; they win over `parameters`. */
      readonly components?: readonly unknown[];
    }
  | { readonly channel: 'whatsapp'; readonly kind: 'text'; readonly text: string };

export interface PushContent {
  readonly channel: 'androidpush' | 'iospush';
  readonly title: string;
  readonly body: string;
  readonly imageUrl?: string;
  readonly deepLink?: string;
  /** String values only: FCM and most clients require a flat string map. */
  readonly data: Readonly<Record<string, string>>;
}

export interface WebpushContent {
  readonly channel: 'webpush';
  readonly title: string;
  readonly body: string;
  readonly icon?: string;
  readonly image?: string;
  readonly url?: string;
}

export interface SlackContent {
  readonly channel: 'slack';
  /** Always present: Slack shows it in notifications even when blocks are given. */
  readonly text: string;
  readonly blocks?: readonly unknown[];
}

export interface MsTeamsContent {
  readonly channel: 'ms_teams';
  readonly text: string;
  /** An Adaptive Card, sent as an attachment. */
  readonly card?: Readonly<Record<string, unknown>>;
}

export interface InboxContent {
  readonly channel: 'inbox';
  readonly title?: string;
  readonly body: string;
  readonly avatar?: string;
  /** Where a click on the avatar goes (SuprSend's `avatar.url`). */
  readonly avatarUrl?: string;
  readonly actionUrl?: string;
  readonly openInNewTab?: boolean;
  readonly subtext?: { readonly text: string; readonly url?: string };
  /** At most MAX_INBOX_BUTTONS. */
  readonly buttons?: readonly InboxButton[];
  /** Tags the feed's stores filter on (`tags.or`). */
  readonly tags?: readonly string[];
  /** Shown first in the feed until read. */
  readonly pinned?: boolean;
  readonly expiry?: InboxExpiry;
  /** Custom data for the page, passed as written (SuprSend's `extra_data`, a string). */
  readonly extraData?: string;
  readonly importance?: 'default' | 'high';
}

export interface InboxButton {
  readonly text: string;
  readonly url: string;
  readonly openInNewTab?: boolean;
}

/**
 * When the message leaves the feed: `afterSeconds` from when it is stored, or `at` (ISO
 * 8601). Rendering is pure, so a relative expiry is resolved by the store, on its clock.
 */
export type InboxExpiry = ({ readonly afterSeconds: number } | { readonly at: string }) & { readonly visible: boolean };

export type RenderedContent =
  | EmailContent
  | SmsContent
  | WhatsappContent
  | PushContent
  | WebpushContent
  | SlackContent
  | MsTeamsContent
  | InboxContent;
