import type { INestApplicationContext } from '@nestjs/common';
import { SUPPORT_MAX_MINUTES } from '../auth/support/support-limits.js';
import { CommandError, type Command, type Options } from './command.js';
import { emailOption, existingStore, required, usage, uuid, wholeNumber } from './command-options.js';

export const openSupportSession: Command = {
  usage: 'support open --store STORE_ID --agent EMAIL --reason TEXT [--minutes 60]',
  options: ['store', 'agent', 'reason', 'minutes'],
  check: async (options) => {
    uuid(options, 'store');
    agentEmail(options);
    supportReason(options);
    wholeNumber(options, 'minutes', 1, SUPPORT_MAX_MINUTES);
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    const minutes = wholeNumber(options, 'minutes', 1, SUPPORT_MAX_MINUTES);
    const support = await supportSessions(app);
    return support.open(storeId, agentEmail(options), supportReason(options), minutes);
  },
};

export const listSupportSessions: Command = {
  usage: 'support list --store STORE_ID',
  options: ['store'],
  check: async (options) => {
    uuid(options, 'store');
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    return { supportSessions: await (await supportSessions(app)).list(storeId) };
  },
};

export const closeSupportSession: Command = {
  usage: 'support close --session SUPPORT_SESSION_ID',
  options: ['session'],
  check: async (options) => {
    uuid(options, 'session');
  },
  run: async (app, options) => {
    const sessionId = uuid(options, 'session');
    const support = await supportSessions(app);
    const { SupportSessionError } = await import('../auth/support/support-sessions.service.js');
    try {
      return { supportSession: await support.close(sessionId) };
    } catch (error) {
      if (error instanceof SupportSessionError) throw new CommandError(error.code, error.message);
      throw error;
    }
  },
};

function agentEmail(options: Options): string {
  return emailOption(options, 'agent');
}

function supportReason(options: Options): string {
  const reason = required(options, 'reason').trim();
  if (reason.length < 3 || reason.length > 500) throw usage('--reason must be 3 to 500 characters: why the agent needs to look');
  return reason;
}

async function supportSessions(app: INestApplicationContext) {
  const { SupportSessions } = await import('../auth/support/support-sessions.service.js');
  return app.get(SupportSessions);
}
