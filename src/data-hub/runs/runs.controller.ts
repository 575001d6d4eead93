import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ChangedRowPageDoc,
  ConflictRowPageDoc,
  RecordRowPageDoc,
  RejectedRowPageDoc,
  RunDoc,
  RunPageDoc,
} from '../dto/data-hub.response.js';
import type { FastifyReply } from 'fastify';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { StartRunDto, UndoRunDto } from '../dto/run.dto.js';
import { RunsService } from './runs.service.js';

@ApiTags('Data hub')
@Controller('admin/data-hub')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Post('flows/:id/runs')
  @RequirePermission('data.flows.manage')
  @ApiOperation({
    summary: 'Run a flow now, or preview it',
    description:
      '`preview: true` computes the run and answers it (200) with its counts and the first rows of each list, writing nothing; otherwise the run is queued (202). One run of a flow at a time (409 run_in_progress).',
  })
  @ApiOkResponse({ description: 'The preview run.', type: RunDoc })
  @ApiAcceptedResponse({ description: 'The queued run.', type: RunDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED', 'connection_not_active', 'run_in_progress'], 'admin')
  async start(
    @Param('id') id: string,
    @Body() body: StartRunDto,
    @CurrentAdmin() admin: AdminPrincipal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { run, queued } = await this.runs.start(admin, id, body);
    reply.status(queued ? 202 : 200);
    return run;
  }

  @Get('flows/:id/runs')
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'Every run of a flow, refusals and previews included', description: 'Newest first.' })
  @ApiOkResponse({ type: RunPageDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED'], 'admin')
  list(@Param('id') id: string, @Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.runs.list(admin, id, query);
  }

  @Get('runs/:id')
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'One run with its counts and outcome' })
  @ApiOkResponse({ description: 'The run.', type: RunDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  get(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.runs.get(admin, id);
  }

  @Get('runs/:id/rejected')
  @RequirePermission('data.flows.read')
  @ApiOperation({
    summary: 'Rows the run rejected',
    description:
      '`{ line, values, errors: [{ field, code, message_en, message_ar }] }`, in order. `line` is the file’s line (the header counts), or for a `database_read` query the row’s ordinal (the first row is 1).',
  })
  @ApiOkResponse({ type: RejectedRowPageDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED'], 'admin')
  rejected(@Param('id') id: string, @Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.runs.rows(admin, id, 'rejected', query);
  }

  @Get('runs/:id/created')
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'Records the run created', description: '`{ key, recordId }`' })
  @ApiOkResponse({ type: RecordRowPageDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED'], 'admin')
  created(@Param('id') id: string, @Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.runs.rows(admin, id, 'created', query);
  }

  @Get('runs/:id/deactivated')
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'Records the run deactivated', description: '`{ key, recordId }`; a preview lists what it would deactivate.' })
  @ApiOkResponse({ type: RecordRowPageDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED'], 'admin')
  deactivated(@Param('id') id: string, @Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.runs.rows(admin, id, 'deactivated', query);
  }

  @Get('runs/:id/changed')
  @RequirePermission('data.flows.read')
  @ApiOperation({
    summary: 'Records the run changed, each field before and after',
    description:
      '`{ key, recordId, changes: [{ field, before, after }] }`, in the file’s order; a field holding a reference (a variant’s product, a product’s category) shows its slug. A preview lists what it would change.',
  })
  @ApiOkResponse({ type: ChangedRowPageDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED'], 'admin')
  changed(@Param('id') id: string, @Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.runs.rows(admin, id, 'changed', query);
  }

  @Get('runs/:id/conflicts')
  @RequirePermission('data.flows.read')
  @ApiOperation({
    summary: 'What an undo left as it was, because it changed since the run',
    description:
      '`{ key, recordId, field, runAfter, now, reason }`: the value the run left and the value now. `reason` is `changed`, `gone` (the record no longer exists) or `in_use` (a record the run created that something now refers to, left in place; `field` is null).',
  })
  @ApiOkResponse({ type: ConflictRowPageDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED'], 'admin')
  conflicts(@Param('id') id: string, @Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.runs.rows(admin, id, 'conflicts', query);
  }

  @Post('runs/:id/undo')
  @RequirePermission('data.flows.manage')
  @ApiOperation({
    summary: 'Undo an import run, or preview its undo',
    description:
      'Fields the run changed go back to their values before it, records it deactivated are active again, records it created are deactivated (categories, brands and customers, which have no deactivation, are removed when nothing uses them). A field changed since by anyone else is left as it is and listed in the undo’s `conflicts`. The undo is a run of the flow (`trigger: "undo"`, `undoOf`), all or nothing, refused by the shrink guard like any run unless overridden. `preview: true` answers (200) what it would do, writing nothing; otherwise it is queued (202). A run is undone once, an undo cannot be undone, and a run older than 90 days cannot be undone (410 undo_expired).',
  })
  @ApiOkResponse({ description: 'The preview of the undo.', type: RunDoc })
  @ApiAcceptedResponse({ description: 'The queued undo.', type: RunDoc })
  @ApiProblemResponses(
    ['NOT_FOUND', 'VALIDATION_FAILED', 'run_not_undoable', 'undo_of_undo', 'already_undone', 'undo_expired', 'run_in_progress'],
    'admin',
  )
  async undo(
    @Param('id') id: string,
    @Body() body: UndoRunDto,
    @CurrentAdmin() admin: AdminPrincipal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { run, queued } = await this.runs.undo(admin, id, body);
    reply.status(queued ? 202 : 200);
    return run;
  }
}
