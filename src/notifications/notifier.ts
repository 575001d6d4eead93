import type { Locale } from '../common/locale.js';
import type { TemplateName } from './templates.js';

/** A file sent with a message. */
export interface Attachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** A rendered message on its way to one recipient. */
export interface OutgoingMessage {
  storeId: string;
  to: string;
  locale: Locale;
  template: TemplateName;
  subject: string;
  text: string;
  attachments?: Attachment[];
}

/** How messages leave the service: SMTP when configured, else the outbox table. */
export interface Notifier {
  deliver(message: OutgoingMessage): Promise<void>;
}

export const NOTIFIER = Symbol('Notifier');

/** A message could not be delivered. Its text never names the recipient or the content (codes stay out of logs). */
export class NotificationFailedError extends Error {
  constructor(
    template: TemplateName,
    /** The transport's reason (a connection error code, an SMTP response code), never the message. */
    readonly reason: string,
  ) {
    super(`Could not deliver the ${template} message: ${reason}`);
  }
}
