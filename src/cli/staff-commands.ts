import type { INestApplicationContext } from '@nestjs/common';
import { PERMISSIONS, STAFF_ROLES, type StaffRole } from '../common/permissions.js';
import { CommandError, type Command, type Options } from './command.js';
import { emailOption, existingStore, required, usage, uuid } from './command-options.js';

export const addStaff: Command = {
  usage: `staff add --store STORE_ID --email EMAIL --name NAME --role ${STAFF_ROLES.join('|')} [--permissions a,b]`,
  options: ['store', 'email', 'name', 'role', 'permissions'],
  check: async (options) => {
    uuid(options, 'store');
    staffEmail(options);
    staffName(options);
    staffRole(options);
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    const { role, permissions } = staffRole(options);
    const staff = await staffMembers(app);
    return staffErrorsAsCommandErrors(() =>
      staff.add(storeId, { email: staffEmail(options), name: staffName(options), role, permissions }),
    );
  },
};

export const listStaff: Command = {
  usage: 'staff list --store STORE_ID',
  options: ['store'],
  check: async (options) => {
    uuid(options, 'store');
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    return { staff: await (await staffMembers(app)).list(storeId) };
  },
};

export const setStaffRole: Command = {
  usage: `staff set-role --staff STAFF_ID --role ${STAFF_ROLES.join('|')} [--permissions a,b]`,
  options: ['staff', 'role', 'permissions'],
  check: async (options) => {
    uuid(options, 'staff');
    staffRole(options);
  },
  run: async (app, options) => {
    const staffId = uuid(options, 'staff');
    const { role, permissions } = staffRole(options);
    const staff = await staffMembers(app);
    return { staff: await staffErrorsAsCommandErrors(() => staff.setRole(staffId, role, permissions)) };
  },
};

export const removeStaff: Command = {
  usage: 'staff remove --staff STAFF_ID',
  options: ['staff'],
  check: async (options) => {
    uuid(options, 'staff');
  },
  run: async (app, options) => {
    const staffId = uuid(options, 'staff');
    const staff = await staffMembers(app);
    return { staff: await staffErrorsAsCommandErrors(() => staff.remove(staffId)) };
  },
};

function staffEmail(options: Options): string {
  return emailOption(options, 'email');
}

function staffName(options: Options): string {
  const name = required(options, 'name').trim();
  if (name.length === 0 || name.length > 200) throw usage('--name must be 1 to 200 characters');
  return name;
}

/** `--role`, and `--permissions` (comma-separated, each a known permission) only with role custom, where it is required. */
function staffRole(options: Options): { role: StaffRole; permissions?: string[] } {
  const role = required(options, 'role') as StaffRole;
  if (!STAFF_ROLES.includes(role)) throw usage(`--role must be one of ${STAFF_ROLES.join(', ')}`);
  const given = options.permissions
    ?.split(',')
    .map((permission) => permission.trim())
    .filter(Boolean);
  if (role !== 'custom') {
    if (given !== undefined) throw usage('--permissions is given only with --role custom (other roles carry their own)');
    return { role };
  }
  const unknown = given?.filter((permission) => !(PERMISSIONS as readonly string[]).includes(permission)) ?? [];
  if (!given || given.length === 0 || unknown.length > 0) {
    throw usage(
      `--role custom needs --permissions, a comma-separated list of: ${PERMISSIONS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
  }
  return { role, permissions: given };
}

async function staffMembers(app: INestApplicationContext) {
  const { StaffMembers } = await import('../auth/staff/staff-members.service.js');
  return app.get(StaffMembers);
}

/** A staff member's refusal (unknown, removed, duplicate email) as the operator's error. */
async function staffErrorsAsCommandErrors<T>(action: () => Promise<T>): Promise<T> {
  const { StaffError } = await import('../auth/staff/staff-members.service.js');
  try {
    return await action();
  } catch (error) {
    if (error instanceof StaffError) throw new CommandError(error.code, error.message);
    throw error;
  }
}
