import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { traced } from '../infra/telemetry/tracing.js';
import { NotificationFailedError, type Notifier, type OutgoingMessage } from './notifier.js';

const SEND_TIMEOUT_MS = 10_000;

/** Sends through the mail server SMTP_URL names, from MAIL_FROM. */
export class SmtpNotifier implements Notifier, OnApplicationShutdown {
  private readonly logger = new Logger(SmtpNotifier.name);
  private readonly transport: Transporter;
  private readonly server: { 'server.address': string; 'server.port'?: number };

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    const url = new URL(smtpUrl);
    this.server = { 'server.address': url.hostname, ...(url.port ? { 'server.port': Number(url.port) } : {}) };
    this.transport = nodemailer.createTransport({
      host: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      secure: url.protocol === 'smtps:',
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      connectionTimeout: SEND_TIMEOUT_MS,
      greetingTimeout: SEND_TIMEOUT_MS,
      socketTimeout: SEND_TIMEOUT_MS,
      // nodemailer's own logging could print message bodies, and with them one-time codes.
      logger: false,
      debug: false,
    });
  }

  async deliver(message: OutgoingMessage): Promise<void> {
    const rtl = message.locale === 'ar';
    try {
      await traced('smtp send', this.server, () =>
        this.transport.sendMail({
          from: this.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: `<!doctype html><html lang="${message.locale}" dir="${rtl ? 'rtl' : 'ltr'}"><body><pre style="font-family:inherit;white-space:pre-wrap">${escapeHtml(message.text)}</pre></body></html>`,
          headers: { 'Content-Language': message.locale },
          attachments: message.attachments?.map(({ filename, contentType, content }) => ({ filename, contentType, content })),
        }),
      );
    } catch (error) {
      // The reason is the transport's (connection, response code), never the message: it holds codes.
      const failure = error as { code?: string; responseCode?: number };
      const reason = [failure.code, failure.responseCode].filter((part) => part !== undefined).join(' ') || 'unknown error';
      this.logger.warn(`SMTP delivery of a ${message.template} message failed: ${reason}`);
      throw new NotificationFailedError(message.template, reason);
    }
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
