import type { Command } from './command.js';
import { seedDemo } from './demo-commands.js';
import { listDatahubConnections } from './datahub-commands.js';
import { rebuildInsights } from './insights-commands.js';
import { issueKey, listKeys, revokeKey } from './key-commands.js';
import { cancelOrder, deliverOrder, listOrders, markOrderReady, refundOrder, shipOrder } from './order-commands.js';
import { listOutbox } from './outbox-commands.js';
import { rotateSigningKey } from './signing-key-commands.js';
import { addStaff, listStaff, removeStaff, setStaffRole } from './staff-commands.js';
import { createStore, setStorePlan } from './store-commands.js';
import { closeSupportSession, listSupportSessions, openSupportSession } from './support-commands.js';

// The command files import only light modules statically: the services (MikroORM, Nest) load inside
// `run`, so a usage error is answered at once, without opening (or starting) a database.

/** Every command by its words, in the order the usage message lists them. */
export const COMMANDS: Record<string, Command> = {
  'store create': createStore,
  'key issue': issueKey,
  'key revoke': revokeKey,
  'key list': listKeys,
  'demo seed': seedDemo,
  'outbox list': listOutbox,
  'order list': listOrders,
  'order ship': shipOrder,
  'order ready': markOrderReady,
  'order deliver': deliverOrder,
  'order cancel': cancelOrder,
  'order refund': refundOrder,
  'store plan': setStorePlan,
  'staff add': addStaff,
  'staff list': listStaff,
  'staff set-role': setStaffRole,
  'staff remove': removeStaff,
  'support open': openSupportSession,
  'datahub connections list': listDatahubConnections,
  'support list': listSupportSessions,
  'support close': closeSupportSession,
  'insights rebuild': rebuildInsights,
  'signing-key rotate': rotateSigningKey,
};
