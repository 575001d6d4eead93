import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface TestSmtpServer {
  /** SMTP_URL for the app: plain SMTP on an ephemeral port, with credentials the server checks. */
  url: string;
  messages: ParsedMail[];
  /** Makes the server refuse every message with a 554 until called with false. */
  refuseMessages(refuse: boolean): void;
  /** Makes the server refuse these recipients (550 at RCPT TO) and take everyone else's mail. */
  refuseRecipients(addresses: string[]): void;
  /** Waits until `count` messages have arrived. */
  received(count: number, ms?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

const USER = 'mailer';
const PASSWORD = 'smtp-test-password';

/** A real SMTP server (smtp-server) that parses what it receives (mailparser). */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ParsedMail[] = [];
  let refusing = false;
  let refusedRecipients = new Set<string>();
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: USER });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (refusedRecipients.has(address.address.toLowerCase())) {
        return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          if (refusing) return callback(Object.assign(new Error('Message refused'), { responseCode: 554 }));
          messages.push(parsed);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`,
    messages,
    refuseMessages: (refuse) => {
      refusing = refuse;
    },
    refuseRecipients: (addresses) => {
      refusedRecipients = new Set(addresses.map((address) => address.toLowerCase()));
    },
    async received(count, ms = 5000) {
      const deadline = Date.now() + ms;
      while (messages.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
