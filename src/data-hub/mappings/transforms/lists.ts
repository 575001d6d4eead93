import { isBlank, trimEdges } from '../../../common/arabic-text.js';
import { defineTransform, flag, flattened, label, object, perArgs, textOf } from './transform.js';
import { isEmptyCell, isEmptyScalar, type Scalar } from '../../../infra/tabular/table-rows.js';

interface ConcatArgs {
  separator?: string;
  skipEmpty?: boolean;
}

export const concat = defineTransform<ConcatArgs>({
  name: 'concat',
  label_en: 'Join into one text',
  label_ar: 'ضم في نص واحد',
  args: object({ separator: { type: 'string', maxLength: 100, default: ' ' }, skipEmpty: flag(true) }),
  argLabels: { separator: label('Separator', 'الفاصل'), skipEmpty: label('Leave out empty values', 'إهمال القيم الفارغة') },
  description_en:
    'Joins the values of a field mapped from several sources (a list) into one text, with separator between them (default one space). Empty items are left out (skipEmpty, default true), so no separator is doubled; with skipEmpty: false they are joined as empty text. Numbers are written in plain decimal form and true/false as "true"/"false". When every item is empty the result is no value (null). A single value (not a list) is unchanged.',
  description_ar:
    'يضم قيم الحقل المأخوذ من عدة مصادر (قائمة) في نص واحد، يفصل بينها separator (مسافة واحدة افتراضياً). تُترك العناصر الفارغة (skipEmpty، وقيمته الافتراضية true) فلا يتكرر الفاصل؛ ومع skipEmpty: false تُضم نصاً فارغاً. تُكتب الأرقام بصيغتها العشرية العادية وtrue/false كلمتين. وإذا كانت العناصر كلها فارغة كانت النتيجة بلا قيمة (null). والقيمة المفردة (غير القائمة) لا تتغير.',
  apply(value, args) {
    if (!Array.isArray(value)) return value;
    if (isEmptyCell(value)) return null;
    const items = flattened(value).filter((item) => !(args.skipEmpty ?? true) || !isEmptyScalar(item));
    return items.map(textOf).join(args.separator ?? ' ');
  },
});

interface SplitArgs {
  separator: string | string[];
  trim?: boolean;
  removeEmpty?: boolean;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const splitter = perArgs((args: SplitArgs) => new RegExp([args.separator].flat().map(escapeRegExp).join('|'), 'u'));

export const split = defineTransform<SplitArgs>({
  name: 'split',
  label_en: 'Split into a list',
  label_ar: 'تقسيم إلى قائمة',
  args: object(
    {
      separator: {
        type: ['string', 'array'],
        minLength: 1,
        maxLength: 100,
        minItems: 1,
        maxItems: 10,
        items: { type: 'string', minLength: 1, maxLength: 100 },
      },
      trim: flag(true),
      removeEmpty: flag(true),
    },
    ['separator'],
  ),
  argLabels: {
    separator: label('Separators (one per line)', 'الفواصل (فاصل في كل سطر)'),
    trim: label('Trim each item', 'إزالة المسافات من طرفي كل عنصر'),
    removeEmpty: label('Drop empty items', 'حذف العناصر الفارغة'),
  },
  description_en:
    'Splits text into a list at separator, e.g. "," for "red, green,blue". separator may also be a list, any of whose texts splits, e.g. [",", "،"] to accept the Arabic comma too. By default each item is trimmed (trim) and empty items are dropped (removeEmpty). An empty cell stays as it is; a number is split as its text; the items of a list are each split and the results make one list.',
  description_ar:
    'يقسم النص إلى قائمة عند separator، مثل "," في "أحمر, أخضر,أزرق". ويمكن أن يكون separator قائمة يقسم النص عند أي نص منها، مثل [",", "،"] لقبول الفاصلة العربية أيضاً. افتراضياً تُزال المسافات من طرفي كل عنصر (trim) وتُحذف العناصر الفارغة (removeEmpty). والخلية الفارغة تبقى كما هي، والرقم يُقسم نصاً، وفي القائمة يُقسم كل عنصر وتُضم النتائج في قائمة واحدة.',
  apply(value, args) {
    const pieces = (item: Scalar): Scalar[] => {
      if (isEmptyScalar(item) || typeof item === 'boolean') return [item];
      const parts = textOf(item)
        .split(splitter(args))
        .map((part) => ((args.trim ?? true) ? trimEdges(part) : part));
      return (args.removeEmpty ?? true) ? parts.filter((part) => !isBlank(part)) : parts;
    };
    if (!Array.isArray(value)) return isEmptyScalar(value) ? value : pieces(value);
    return flattened(value).flatMap((item) => (isEmptyScalar(item) && (args.removeEmpty ?? true) ? [] : pieces(item)));
  },
});
