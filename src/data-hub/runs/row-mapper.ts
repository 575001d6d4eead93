import type { MappingField } from '../entities/mapping.entity.js';
import { checkValue, isEmptyValue, type FieldValue, type Structure, type StructureField } from '../structures/structures.js';
import { applyTransforms } from '../mappings/transforms/registry.js';
import { TransformError } from '../mappings/transforms/transform.js';
import { type CellValue } from '../../infra/tabular/table-rows.js';
import { cellOf, type SourceRow } from '../../infra/tabular/table-rows.js';

/** Why one field of a row cannot be imported (a run's rejected rows list them). */
export interface RowError {
  field: string;
  code: string;
  message_en: string;
  message_ar: string;
}

/** A row's values by field name, and the fields whose empty cell clears the record's value (`clearWhenEmpty`). */
export interface MappedRow {
  values: Record<string, FieldValue>;
  cleared: string[];
}

/**
 * A source row through an import mapping: each target's source cell (or cells) through its transforms,
 * then checked against the structure's field. Only the key needs a value: an empty cell leaves the
 * record's value as it is (or clears it, for a field mapped `clearWhenEmpty`), and what creating a
 * record needs is checked once it is known the row creates one. The row's values, or every error it has.
 */
export class RowMapper {
  private readonly steps: { field: MappingField; spec: StructureField }[];

  constructor(
    private readonly structure: Structure,
    fields: readonly MappingField[],
  ) {
    this.steps = fields.map((field) => ({ field, spec: structure.fields.find((candidate) => candidate.name === field.target)! }));
  }

  /** The source columns the mapping reads. */
  get sources(): string[] {
    return [...new Set(this.steps.flatMap(({ field }) => field.sources ?? [field.source!]))];
  }

  map(row: SourceRow): MappedRow | { errors: RowError[] } {
    const values: Record<string, FieldValue> = {};
    const cleared: string[] = [];
    const errors: RowError[] = [];
    for (const { field, spec } of this.steps) {
      const raw: CellValue = field.sources ? field.sources.map((source) => cellOf(row, source)) : cellOf(row, field.source!);
      let transformed: CellValue;
      try {
        transformed = applyTransforms(raw, field.transforms);
      } catch (error) {
        if (!(error instanceof TransformError)) throw error;
        errors.push({ field: field.target, ...error.failure });
        continue;
      }
      const checked = checkValue(spec, transformed, spec.name === this.structure.key);
      if ('problem' in checked) errors.push({ field: field.target, ...checked.problem });
      else values[field.target] = checked.value;
      if (field.clearWhenEmpty && isEmptyValue(transformed)) cleared.push(field.target);
    }
    return errors.length > 0 ? { errors } : { values, cleared };
  }
}
