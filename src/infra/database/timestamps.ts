import { p } from '@mikro-orm/core';

/** `created_at timestamptz not null default now()`, set by the ORM too when it inserts. */
export function createdAt() {
  return p
    .datetime()
    .defaultRaw('now()')
    .onCreate(() => new Date());
}

/** `updated_at timestamptz not null default now()`, refreshed by the ORM on every update it makes. */
export function updatedAt() {
  return createdAt().onUpdate(() => new Date());
}
