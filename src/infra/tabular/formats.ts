/**
 * The tabular files the service reads and writes (data hub imports and exports, Insights exports): their
 * formats and the text encodings a CSV may come in. What a flow, a connection and a run name.
 */
export const SOURCE_FORMATS = ['csv', 'jsonl', 'xlsx'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

export const FILE_ENCODINGS = ['utf-8', 'windows-1256'] as const;
export type FileEncoding = (typeof FILE_ENCODINGS)[number];
