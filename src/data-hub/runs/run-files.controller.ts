import { Controller, Get, Param, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { attachment } from '../../infra/http/attachment.js';
import { RejectedFiles, REJECTED_FILE_TYPES, type RejectedFileFormat } from './rejected-file.js';

const REJECTED_FILE_DESCRIPTION =
  'The run’s rejected rows, in the order of `GET /runs/{id}/rejected`, as a file to fix and upload again: the source’s columns as the rows hold them (the mapping’s source columns first), then `line` and `reasons` (each prefixed by its column, separated by `; `, or `؛ ` in Arabic), headed in the caller’s language (Accept-Language; `السطر` and `الأسباب` in Arabic). A value a row was refused with after the file was read (an unknown key, a repeated one) is written under its column when importing it again gives that value; otherwise its cell is empty. Text a spreadsheet would run as a formula is written behind an apostrophe. A run without rejected rows gives the header alone; 410 run_lists_purged once the run’s lists were removed, 90 days after it.';

@ApiTags('Data hub')
@Controller('admin/data-hub/runs')
export class RunFilesController {
  constructor(private readonly rejectedFiles: RejectedFiles) {}

  @Get(':id/rejected.csv')
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'Download the rows the run rejected, as CSV', description: REJECTED_FILE_DESCRIPTION })
  @ApiProduces(REJECTED_FILE_TYPES.csv)
  @ApiOkResponse({ description: 'UTF-8 CSV with a byte order mark.', schema: { type: 'string', format: 'binary' } })
  @ApiProblemResponses(['NOT_FOUND', 'run_lists_purged'], 'admin')
  csv(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<StreamableFile> {
    return this.download(admin, id, 'csv');
  }

  @Get(':id/rejected.xlsx')
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'Download the rows the run rejected, as XLSX', description: REJECTED_FILE_DESCRIPTION })
  @ApiProduces(REJECTED_FILE_TYPES.xlsx)
  @ApiOkResponse({ description: 'An XLSX workbook, right to left in Arabic.', schema: { type: 'string', format: 'binary' } })
  @ApiProblemResponses(['NOT_FOUND', 'run_lists_purged'], 'admin')
  xlsx(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<StreamableFile> {
    return this.download(admin, id, 'xlsx');
  }

  private async download(admin: AdminPrincipal, id: string, format: RejectedFileFormat): Promise<StreamableFile> {
    const file = await this.rejectedFiles.open(admin, id, format);
    return new StreamableFile(file.content, { type: file.contentType, disposition: attachment(file.name) });
  }
}
