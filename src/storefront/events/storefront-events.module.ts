import { Module } from '@nestjs/common';
import { StorefrontEventRecorder } from './storefront-event-recorder.js';

/**
 * The storefront's funnel events (contract section 8): the areas where a step happens (auth's mint,
 * the catalogue's product detail, the cart, checkout) hand them to the one recorder of the instance.
 */
@Module({
  providers: [StorefrontEventRecorder],
  exports: [StorefrontEventRecorder],
})
export class StorefrontEventsModule {}
