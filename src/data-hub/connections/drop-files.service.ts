import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { STORAGE_FAILURES, type StorageFailureCode } from '../../infra/storage/storage-failure.js';
import { ConnectionFailure } from '../connectors/connection-failure.js';
import { FILE_NAME_PATTERN } from '../connectors/file-template.js';
import { measuredStream } from '../connectors/measured-stream.js';
import { PlatformDropConnector } from '../connectors/platform-drop.js';
import { ConnectionsService } from './connections.service.js';

/** The most a file uploaded to the drop may hold (contract section 9). */
export const DROP_FILE_MAX_BYTES = 2 * 1024 ** 3;

export interface DropFile {
  name: string;
  bytes: number;
  modifiedAt: string;
}

/**
 * Files of `platform_drop` connections: uploaded streamed (never held in memory, refused past 2 GiB
 * and then not kept), listed and downloaded. Files of other kinds live on their own servers.
 */
@Injectable()
export class DropFilesService {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly drop: PlatformDropConnector,
  ) {}

  async upload(
    admin: AdminPrincipal,
    id: string,
    name: string,
    content: Readable,
    declaredBytes?: number,
  ): Promise<DropFile & { sha256: string }> {
    const location = await this.location(admin, id);
    checkName(name);
    if (declaredBytes !== undefined && declaredBytes > DROP_FILE_MAX_BYTES) {
      content.resume();
      throw tooLarge();
    }
    const counted = measuredStream(DROP_FILE_MAX_BYTES, tooLarge);
    content.on('error', (error) => counted.stream.destroy(error));
    await answered(location.write(name, content.pipe(counted.stream)));
    const written = (await answered(location.list())).find((file) => file.name === name);
    return { name, bytes: counted.bytes(), sha256: counted.sha256(), modifiedAt: (written?.modifiedAt ?? new Date()).toISOString() };
  }

  async list(admin: AdminPrincipal, id: string): Promise<{ items: DropFile[] }> {
    const files = await answered((await this.location(admin, id)).list());
    return { items: files.map((file) => ({ name: file.name, bytes: file.bytes, modifiedAt: file.modifiedAt.toISOString() })) };
  }

  async download(admin: AdminPrincipal, id: string, name: string): Promise<{ bytes: number; content: Readable }> {
    const location = await this.location(admin, id);
    checkName(name);
    const file = (await answered(location.list())).find((listed) => listed.name === name);
    if (!file)
      throw new ApiError('NOT_FOUND', { message: { en: `The drop holds no file ${name}.`, ar: `لا يحوي المجلد ملفًا باسم ${name}.` } });
    try {
      return { bytes: file.bytes, content: await location.read(name) };
    } catch (error) {
      if (error instanceof ConnectionFailure && error.code === 'not_found') throw new ApiError('NOT_FOUND');
      throw refusalOf(error);
    }
  }

  private async location(admin: AdminPrincipal, id: string) {
    const stored = await this.connections.stored(admin, id);
    if (stored.kind !== 'platform_drop') {
      throw new ApiError('NOT_FOUND', {
        message: { en: 'Only platform_drop connections hold files here.', ar: 'لا تحفظ الملفات هنا إلا اتصالات platform_drop.' },
      });
    }
    return this.drop.open(this.connections.target(stored));
  }
}

/** The drop's storage failing for a reason its operator must mend (full, not writable, no bucket) answers that reason. */
function refusalOf(error: unknown): unknown {
  return error instanceof ConnectionFailure && Object.hasOwn(STORAGE_FAILURES, error.code)
    ? new ApiError(error.code as StorageFailureCode)
    : error;
}

function answered<T>(operation: Promise<T>): Promise<T> {
  return operation.catch((error: unknown) => {
    throw refusalOf(error);
  });
}

function checkName(name: string): void {
  if (!FILE_NAME_PATTERN.test(name)) {
    throw invalidField('name', 'matches', {
      en: 'A file name is 1 to 200 letters, digits, dots, hyphens and underscores.',
      ar: 'اسم الملف من 1 إلى 200 حرف من الحروف اللاتينية والأرقام والنقاط والشرطات والشرطات السفلية.',
    });
  }
}

function tooLarge(): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', {
    message: { en: 'A file in the drop may hold at most 2 GiB.', ar: 'لا يتجاوز حجم الملف في مجلد الإيداع 2 غيغابايت.' },
  });
}
