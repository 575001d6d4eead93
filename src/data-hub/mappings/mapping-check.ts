import type { FieldError } from '../../common/errors/api-error.js';
import type { MappingField } from '../entities/mapping.entity.js';
import type { Direction, Structure } from '../structures/structures.js';
import { checkTransformArgs } from './transforms/registry.js';

const error = (field: string, code: string, en: string, ar: string): FieldError => ({ field, code, message_en: en, message_ar: ar });

/**
 * What makes a mapping unusable for its structure and direction, per field (contract sections 9 and 11:
 * 400 mapping_invalid). An import fills the structure's fields: each target is one of them, once; the key
 * is filled, and at least one field to change (what creating a record needs is checked row by row); only
 * a clearable field is cleared when empty. An export writes the structure's fields as columns: each
 * source is one of them and each column name is used once. Every transform exists and its args fit its schema.
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
    const spec = structure.fields.find((candidate) => candidate.name === field.target);
    if (field.clearWhenEmpty && (direction === 'export' || (spec && !spec.clearable))) {
      const clearable = structure.fields.filter((candidate) => candidate.clearable).map((candidate) => candidate.name);
      const which = clearable.length > 0 ? clearable.join(', ') : 'none';
      errors.push(
        error(
          `${at}.clearWhenEmpty`,
          'not_clearable',
          direction === 'export'
            ? 'Only an import clears values.'
            : `${field.target} cannot be cleared: it always has a value. Fields of ${structure.name} an empty cell may clear: ${which}.`,
          direction === 'export'
            ? 'المسح يخص الاستيراد فقط.'
            : `لا يمكن مسح ${field.target}: له قيمة دائمًا. حقول ${structure.name} التي يمكن أن تمسحها خلية فارغة: ${clearable.length > 0 ? clearable.join('، ') : 'لا شيء'}.`,
        ),
      );
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
  if (direction === 'import' && !seen.has(structure.key)) {
    errors.push(
      error(
        'fields',
        'required_unmapped',
        `${structure.name} are matched by ${structure.key}: map it.`,
        `تُطابَق ${structure.name} بالحقل ${structure.key}: اربطه.`,
      ),
    );
  }
  if (direction === 'import' && ![...seen].some((target) => target !== structure.key && known.has(target))) {
    errors.push(
      error(
        'fields',
        'nothing_to_change',
        `The mapping changes nothing: map at least one field of ${structure.name} besides ${structure.key}.`,
        `لا يغيّر الربط شيئًا: اربط حقلًا واحدًا على الأقل من ${structure.name} غير ${structure.key}.`,
      ),
    );
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
