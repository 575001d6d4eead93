import { Migration } from '@mikro-orm/migrations';

/**
 * Test orders and the grace before an order is late (contract section 8, Insights settings). An order
 * placed by a storefront's staging or QA run says so (`orders.test`), and Insights leaves such orders
 * out of every figure unless the store's settings count them (`exclude_test_orders`, on by default,
 * as Shopify does). `late_after_hours` is the grace after an order's promise before it counts as late
 * (null: none). Both columns' defaults are constants, so adding them rewrites no table.
 */
export class Migration0012InsightsTestOrdersAndLateness extends Migration {
  override name = '0012-insights-test-orders-and-lateness';

  override up(): void {
    this.addSql(`
      alter table orders add column test boolean not null default false;
      alter table insights_settings
        add column exclude_test_orders boolean not null default true,
        add column late_after_hours int null
          constraint insights_settings_late_after_hours_check check (late_after_hours >= 0 and late_after_hours <= 720);
    `);
  }
}
