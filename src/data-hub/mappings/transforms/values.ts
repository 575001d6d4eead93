import { trimEdges } from '../../../common/arabic-text.js';
import {
  argsError,
  defineTransform,
  eachItem,
  flag,
  label,
  object,
  pathSegment,
  perArgs,
  quoted,
  refuse,
  textOf,
  type TransformArgsError,
} from './transform.js';
import { isEmptyCell, isEmptyScalar } from '../../../infra/tabular/table-rows.js';

interface DefaultArgs {
  value: string | number | boolean;
}

export const default_ = defineTransform<DefaultArgs>({
  name: 'default',
  label_en: 'Value for empty cells',
  label_ar: 'قيمة للخلايا الفارغة',
  args: object({ value: { type: ['string', 'number', 'boolean'], maxLength: 10_000 } }, ['value']),
  argLabels: { value: label('Value', 'القيمة') },
  description_en:
    'Gives an empty cell (no value, empty text, text of spaces only, or a list whose items are all empty) the value of value: text, a number or true/false. Any other cell is unchanged.',
  description_ar:
    'يعطي الخلية الفارغة (بلا قيمة، أو نص فارغ، أو نص من مسافات فقط، أو قائمة كل عناصرها فارغة) القيمة المحددة في value: نصاً أو رقماً أو true/false. ولا تتغير أي خلية أخرى.',
  apply: (value, args) => (isEmptyCell(value) ? args.value : value),
});

type Otherwise = 'keep' | 'empty' | 'reject';
type MappedValue = string | number | boolean | null;

interface MapValuesArgs {
  map: Record<string, MappedValue>;
  caseSensitive?: boolean;
  otherwise?: Otherwise;
}

function matchKey(text: string, caseSensitive: boolean): string {
  const key = trimEdges(text).normalize('NFC');
  return caseSensitive ? key : key.toLowerCase();
}

const valueLookup = perArgs(
  (args: MapValuesArgs) => new Map(Object.entries(args.map).map(([from, to]) => [matchKey(from, args.caseSensitive ?? false), to])),
);

/** Keys that read the same once trimmed (and, unless case-sensitive, once lower-cased) but map to different values. */
function clashingKeys(args: MapValuesArgs): TransformArgsError[] {
  const seen = new Map<string, { from: string; to: MappedValue }>();
  const errors: TransformArgsError[] = [];
  for (const [from, to] of Object.entries(args.map)) {
    const key = matchKey(from, args.caseSensitive ?? false);
    const earlier = seen.get(key);
    if (earlier && earlier.to !== to) {
      errors.push(
        argsError(
          `map${pathSegment(from)}`,
          'map_key_clash',
          `"${from}" and "${earlier.from}" are the same value to the map (spaces at the ends and letter case are ignored) but map to different values.`,
          `"${from}" و"${earlier.from}" قيمة واحدة عند المطابقة (تُهمل المسافات في الطرفين وحالة الأحرف) لكنهما تتحولان إلى قيمتين مختلفتين.`,
        ),
      );
    }
    seen.set(key, { from, to });
  }
  return errors;
}

export const map_values = defineTransform<MapValuesArgs>({
  name: 'map_values',
  label_en: 'Replace listed values',
  label_ar: 'استبدال قيم محددة',
  args: object(
    {
      map: {
        type: 'object',
        minProperties: 1,
        maxProperties: 10_000,
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 10_000 },
      },
      caseSensitive: flag(false),
      otherwise: { enum: ['keep', 'empty', 'reject'], default: 'keep' },
    },
    ['map'],
  ),
  argLabels: {
    map: label('Values and what they become', 'القيم وما تصبح عليه'),
    caseSensitive: label('Match letter case', 'مراعاة حالة الأحرف'),
    otherwise: label('A value not listed', 'القيمة غير المذكورة'),
  },
  description_en:
    'Replaces a value by the one map gives for it, e.g. { "Yes": true, "نعم": true, "No": false, "لا": false }. The cell is compared as text with the spaces at its ends ignored (the number 1 matches the key "1"), and ignoring the case of letters unless caseSensitive is true. A value the map does not list is kept as it is (otherwise: "keep", the default), becomes no value ("empty"), or rejects the row ("reject"). An empty cell takes the value of the key "" when map has one, and stays empty otherwise. In a list, each item is mapped.',
  description_ar:
    'يستبدل بالقيمة ما يقابلها في map، مثل { "Yes": true, "نعم": true, "No": false, "لا": false }. تُقارَن الخلية نصاً مع إهمال المسافات في طرفيها (فالرقم 1 يطابق المفتاح "1")، ومع إهمال حالة الأحرف ما لم تكن caseSensitive هي true. والقيمة غير المذكورة في map تبقى كما هي (otherwise: "keep"، وهو الافتراضي)، أو تصبح بلا قيمة ("empty")، أو يُرفض الصف ("reject"). والخلية الفارغة تأخذ قيمة المفتاح "" إن وُجد في map، وإلا بقيت فارغة. وفي القائمة يُحوَّل كل عنصر على حدة.',
  checkArgs: clashingKeys,
  apply(value, args) {
    const lookup = valueLookup(args);
    return eachItem(value, (item) => {
      const key = isEmptyScalar(item) ? '' : matchKey(textOf(item), args.caseSensitive ?? false);
      if (lookup.has(key)) return lookup.get(key)!;
      if (key === '' || (args.otherwise ?? 'keep') === 'keep') return item;
      if (args.otherwise === 'empty') return null;
      throw refuse('unmapped_value', {
        en: `${quoted(item)} is not one of the values the map lists.`,
        ar: `${quoted(item)} ليست من القيم المذكورة في جدول التحويل.`,
      });
    });
  },
});
