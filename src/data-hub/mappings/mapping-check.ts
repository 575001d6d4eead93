import type { FieldError } from '../../common/errors/api-error.js';
import type { MappingField } from '../entities/mapping.entity.js';
import type { Direction, Structure } from '../structures/structures.js';
import { checkTransformArgs } from './transforms/registry.js';

const error = (field: string, code: string, en: string, ar: string): FieldError => ({ field, code, message_en: en, message_ar: ar });

/**
 * What makes a mapping unusable for its structure and direction, per field (contract section 9: 400
 * mapping_invalid). An import fills the structure's fields: each target is one of them, once, and every
 * required field is filled. An export writes the structure's fields as columns: each source is one of
 * them and each column name is used once. Every transform exists and its args fit its schema.
 */
export function checkMapping(structure: Structure, direction: Direction, fields: readonly MappingField[]): FieldError[] {
  if (!structure.directions.includes(direction)) {
    // The fields of a direction the structure does not go in mean nothing: that is the one error.
    return [
      error(
        'direction',
        'direction_unsupported',
        `${structure.name} can only be ${structure.directions.join(' or ')}ed.`,
        `لا يمكن لـ ${structure.name} إلا: ${structure.directions.join(' أو ')}.`,
      ),
    ];
  }
  const errors: FieldError[] = [];
  const known = new Set(structure.fields.map((field) => field.name));
  const seen = new Set<string>();
  fields.forEach((field, index) => {
    const at = `fields[${index}]`;
    if (seen.has(field.target)) {
      errors.push(error(`${at}.target`, 'duplicate_target', `${field.target} is mapped twice.`, `${field.target} مربوط مرتين.`));
    }
    seen.add(field.target);
    if (direction === 'import' && !known.has(field.target)) {
      errors.push(unknownField(`${at}.target`, field.target, structure));
    }
    if (direction === 'export') {
      const sources = field.sources ?? (field.source === undefined ? [] : [field.source]);
      sources.forEach((source, position) => {
        if (!known.has(source)) errors.push(unknownField(field.sources ? `${at}.sources[${position}]` : `${at}.source`, source, structure));
      });
    }
    field.transforms.forEach((step, position) => {
      for (const problem of checkTransformArgs(step.name, step.args)) {
        errors.push({ ...problem, field: `${at}.transforms[${position}].${problem.field}` });
      }
    });
  });
  if (direction === 'import') {
    const unmapped = structure.fields.filter((field) => field.required && !seen.has(field.name)).map((field) => field.name);
    if (unmapped.length > 0) {
      errors.push(
        error(
          'fields',
          'required_unmapped',
          `Required fields of ${structure.name} not mapped: ${unmapped.join(', ')}.`,
          `حقول مطلوبة في ${structure.name} غير مربوطة: ${unmapped.join('، ')}.`,
        ),
      );
    }
  }
  return errors;
}

function unknownField(path: string, name: string, structure: Structure): FieldError {
  const names = structure.fields.map((field) => field.name).join(', ');
  return error(
    path,
    'unknown_field',
    `${structure.name} has no field ${name}. Fields: ${names}.`,
    `لا يوجد في ${structure.name} الحقل ${name}. الحقول: ${names}.`,
  );
}
