import { Module } from '@nestjs/common';
import { DashboardModule } from '../auth/dashboard/dashboard.module.js';
import { DataHubReferenceController } from './reference.controller.js';
import { ConnectionsController } from './connections/connections.controller.js';
import { ConnectionsModule } from './connections/connections.module.js';
import { DropFilesService } from './connections/drop-files.service.js';
import { FlowsController } from './flows/flows.controller.js';
import { FlowsService } from './flows/flows.service.js';
import { MappingsController } from './mappings/mappings.controller.js';
import { MappingsService } from './mappings/mappings.service.js';
import { NotificationsModule } from '../notifications/notifications.module.js';
import { ExportRunner } from './runs/export-runner.js';
import { FlowDispatcher } from './runs/flow-dispatcher.js';
import { ImportRunner } from './runs/import-runner.js';
import { UndoRunner } from './runs/undo-runner.js';
import { RejectedFiles } from './runs/rejected-file.js';
import { RunFilesController } from './runs/run-files.controller.js';
import { RunRetentionScheduler } from './runs/run-retention.js';
import { RunsController } from './runs/runs.controller.js';
import { RunsDatabase } from './runs/runs-database.js';
import { RunsService } from './runs/runs.service.js';
import { StoresModule } from '../stores/stores.module.js';

/**
 * The data hub (contract section 9): connections to the places a store's data comes from and goes
 * to; the structures and transforms mappings are built from; versioned mappings; flows and their runs
 * (durable jobs).
 */
@Module({
  imports: [DashboardModule, ConnectionsModule, NotificationsModule, StoresModule],
  controllers: [DataHubReferenceController, ConnectionsController, MappingsController, FlowsController, RunsController, RunFilesController],
  providers: [
    DropFilesService,
    MappingsService,
    FlowsService,
    RunsDatabase,
    ImportRunner,
    UndoRunner,
    ExportRunner,
    RunsService,
    FlowDispatcher,
    RejectedFiles,
    RunRetentionScheduler,
  ],
})
export class DataHubModule {}
