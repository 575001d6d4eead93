import { Module } from '@nestjs/common';
import { CatalogueWriter } from './catalogue-writer.js';

/** The catalogue's bulk writer on its own, for callers that need no HTTP (the demo, the command line, imports). */
@Module({
  providers: [CatalogueWriter],
  exports: [CatalogueWriter],
})
export class CatalogueWriterModule {}
