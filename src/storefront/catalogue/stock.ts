import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';

export interface StockUnits {
  variantId: string;
  quantity: number;
}

/**
 * Takes sold units out of stock, each variant only if it still has them. The caller holds the
 * variants' row locks (taken in id order, so concurrent takers cannot deadlock); true when every
 * variant had enough, else nothing is to be kept and the caller rolls back.
 */
export async function takeStock(em: EntityManager, sold: StockUnits[]): Promise<boolean> {
  const json = JSON.stringify(sold.map((units) => ({ variant_id: units.variantId, quantity: units.quantity })));
  const { numAffectedRows } = await sql`
    update product_variants pv set stock = pv.stock - sold.quantity
    from jsonb_to_recordset(${json}::jsonb) as sold(variant_id uuid, quantity int)
    where pv.id = sold.variant_id and pv.stock >= sold.quantity`.execute(em.getKysely());
  return Number(numAffectedRows ?? 0) === sold.length;
}

/** Puts units back in stock (variants deleted since are skipped): rows locked in id order first, as takers lock them. */
export async function returnStock(em: EntityManager, units: { variantId: string | null; quantity: number }[]): Promise<void> {
  const changes = units.filter((unit) => unit.variantId !== null && unit.quantity > 0);
  if (changes.length === 0) return;
  const db = em.getKysely();
  const json = JSON.stringify(changes.map((unit) => ({ variant_id: unit.variantId, quantity: unit.quantity })));
  await sql`
    select id from product_variants where id = any(select variant_id from jsonb_to_recordset(${json}::jsonb) as r(variant_id uuid, quantity int))
    order by id for no key update`.execute(db);
  await sql`
    update product_variants pv set stock = pv.stock + r.quantity
    from jsonb_to_recordset(${json}::jsonb) as r(variant_id uuid, quantity int)
    where pv.id = r.variant_id`.execute(db);
}
