import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { notWorkbook } from './file-refusal.js';
import type { ArchivePart } from './xlsx-archive-guard.js';

/**
 * A part's XML read as it unpacks, saxes doing the XML: its bytes are decoded as UTF-8 across the pieces
 * they come in (a character split between two pieces reads whole), and a subclass hears its elements by
 * their local names (`x:row` is `row`), with their attributes, and its text (CDATA included). XML saxes
 * refuses makes the file not a workbook (`format_mismatch`); a part that holds nothing is read as empty.
 */
export abstract class XmlPart implements ArchivePart {
  /** Whether the part was read to its end. */
  ended = false;
  private readonly decoder = new StringDecoder('utf8');
  private readonly parser = new SaxesParser({ position: false });
  private written = false;
  private failed = false;

  constructor() {
    this.parser.on('error', () => {
      this.failed = true;
    });
    this.parser.on('opentag', (tag) => this.open(localName(tag.name), tag.attributes as Record<string, string>));
    this.parser.on('closetag', (tag) => this.close(localName(tag.name)));
    this.parser.on('text', (text) => this.text(text));
    this.parser.on('cdata', (text) => this.text(text));
  }

  write(data: Uint8Array): void {
    this.feed(this.decoder.write(data));
  }

  end(): void {
    this.feed(this.decoder.end());
    if (this.written) this.parser.close();
    if (this.failed) throw notWorkbook();
    this.ended = true;
    this.done();
  }

  protected abstract open(name: string, attributes: Record<string, string>): void;

  protected close(_name: string): void {}

  protected text(_text: string): void {}

  /** The part was read to its end. */
  protected done(): void {}

  private feed(text: string): void {
    if (text === '' || this.failed) return;
    this.written = true;
    this.parser.write(text);
    if (this.failed) throw notWorkbook();
  }
}

/** An element's or attribute's name without its namespace prefix. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}
