import { once } from 'node:events';
import { constants, crc32, createDeflateRaw } from 'node:zlib';

/** A part of an archive: its content given in pieces, so that a large one can repeat one piece without holding it whole. */
export interface ZipPart {
  name: string;
  pieces: Iterable<Buffer>;
}

/**
 * A zip archive as Excel writes one (each part deflated, its sizes and CRC-32 in its local header, then
 * the central directory), written by hand with node:zlib: the test decides every byte a reader meets.
 * With `descriptors`, as exceljs and other streaming writers do: the sizes in a data descriptor after each part.
 * `level`: deflate's, the best compression unless said.
 */
export async function zipArchive(parts: ZipPart[], { descriptors = false, level = constants.Z_BEST_COMPRESSION } = {}): Promise<Buffer> {
  const records: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const { packed, crc, size } = await deflated(part.pieces, level);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(descriptors ? 0x0808 : 0x0800, 6); // UTF-8 names, sizes after the data
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    const sizes = Buffer.alloc(12);
    sizes.writeUInt32LE(crc, 0);
    sizes.writeUInt32LE(packed.length, 4);
    sizes.writeUInt32LE(size, 8);
    if (!descriptors) sizes.copy(local, 14);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by
    local.copy(central, 6, 4, 30); // version needed … extra field length, as in the local header
    sizes.copy(central, 16);
    central.writeUInt16LE(0, 32); // comment length
    central.writeUInt32LE(offset, 42);
    const descriptor = descriptors ? [Buffer.from([0x50, 0x4b, 0x07, 0x08]), sizes] : [];
    records.push(local, name, packed, ...descriptor);
    directory.push(central, name);
    offset += local.length + name.length + packed.length + (descriptors ? 16 : 0);
  }
  const directoryBytes = directory.reduce((sum, bytes) => sum + bytes.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directoryBytes, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...records, ...directory, end]);
}

async function deflated(pieces: Iterable<Buffer>, level: number): Promise<{ packed: Buffer; crc: number; size: number }> {
  const deflater = createDeflateRaw({ level });
  const packed: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => packed.push(chunk));
  let crc = 0;
  let size = 0;
  for (const piece of pieces) {
    crc = crc32(piece, crc);
    size += piece.length;
    if (!deflater.write(piece)) await once(deflater, 'drain');
  }
  deflater.end();
  await once(deflater, 'end');
  return { packed: Buffer.concat(packed), crc, size };
}

const xml = (text: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${text}`);

/**
 * The parts of a one-worksheet XLSX workbook, as Excel lays them out, around the worksheet's `<sheetData>`
 * content (given in pieces) and, when given, the shared strings' `<sst>` content.
 */
export function workbookParts(sheetData: Iterable<Buffer>, sharedStrings?: Iterable<Buffer>): ZipPart[] {
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const relationships = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const parts: ZipPart[] = [
    {
      name: '[Content_Types].xml',
      pieces: [
        xml(
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
            '<Default Extension="xml" ContentType="application/xml"/>' +
            '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
            '</Types>',
        ),
      ],
    },
    {
      name: '_rels/.rels',
      pieces: [
        xml(
          `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${relationships}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
        ),
      ],
    },
    {
      name: 'xl/workbook.xml',
      pieces: [
        xml(
          `<workbook xmlns="${main}" xmlns:r="${relationships}"><sheets><sheet name="Stock" sheetId="1" r:id="rId1"/></sheets></workbook>`,
        ),
      ],
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      pieces: [
        xml(
          `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
            `<Relationship Id="rId1" Type="${relationships}/worksheet" Target="worksheets/sheet1.xml"/>` +
            (sharedStrings === undefined
              ? ''
              : `<Relationship Id="rId2" Type="${relationships}/sharedStrings" Target="sharedStrings.xml"/>`) +
            '</Relationships>',
        ),
      ],
    },
  ];
  if (sharedStrings !== undefined)
    parts.push({ name: 'xl/sharedStrings.xml', pieces: [xml(`<sst xmlns="${main}">`), ...sharedStrings, Buffer.from('</sst>')] });
  parts.push({
    name: 'xl/worksheets/sheet1.xml',
    pieces: [xml(`<worksheet xmlns="${main}"><sheetData>`), ...sheetData, Buffer.from('</sheetData></worksheet>')],
  });
  return parts;
}

/** A row of inline strings (`<c t="inlineStr">`), as some programs other than Excel write them. */
export function inlineRow(row: number, texts: string[]): Buffer {
  const cells = texts.map((text, index) => `<c r="${String.fromCharCode(65 + index)}${row}" t="inlineStr"><is><t>${text}</t></is></c>`);
  return Buffer.from(`<row r="${row}">${cells.join('')}</row>`);
}
