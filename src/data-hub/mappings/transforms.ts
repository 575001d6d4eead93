import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { type Matcher, RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';
import type { Bilingual } from '../../common/bilingual.js';
import { decimalAmount } from '../../common/money.js';
import {
  collapseSpaces,
  collapseSpacesKeepingLines,
  FULL_ARABIC_NORMALIZATION,
  isBlank,
  normalizeArabic,
  trimEdges,
  type ArabicNormalization,
} from './arabic-text.js';
import {
  dateFromNumber,
  DEFAULT_TIMEZONE,
  formatProblem,
  isKnownTimezone,
  parseDateText,
  type DateOutput,
  type DateProblem,
  type DateReading,
  type NumberDates,
} from './parse-date.js';
import {
  decimalText,
  INTEGER_MAX,
  INTEGER_MIN,
  parseInteger,
  parseMinorUnits,
  THOUSANDS_SEPARATORS,
  type DecimalSeparator,
  type NumberProblem,
  type ThousandsSeparator,
} from './parse-number.js';

/** A source cell as a reader gives it: CSV text, a JSON value, an XLSX cell, or a list (a field with several sources, split text). */
export type CellValue = string | number | boolean | null | CellValue[];
type Scalar = Exclude<CellValue, CellValue[]>;

export type JsonSchema = { readonly [keyword: string]: unknown };

/** Why a transform refused a value, as the merchant reads it in the rejected rows. */
export interface TransformFailure {
  code: string;
  message_en: string;
  message_ar: string;
}

export class TransformError extends Error {
  constructor(readonly failure: TransformFailure) {
    super(`${failure.code}: ${failure.message_en}`);
  }

  get code(): string {
    return this.failure.code;
  }
}

/** What is wrong with a transform's args; `field` is the arg's path (`args.formats[1]`), or `name` for an unknown transform. */
export interface TransformArgsError {
  field: string;
  code: string;
  message_en: string;
  message_ar: string;
}

/** What a merchant calls an arg, in both languages. */
export interface ArgLabel {
  label_en: string;
  label_ar: string;
}

export interface TransformDefinition {
  name: string;
  /** What a merchant calls it ("Trim spaces"); `name` is the identifier a mapping names. */
  label_en: string;
  label_ar: string;
  /** JSON schema of the args object, as GET /transforms publishes it. */
  args: JsonSchema;
  /** The label of each of the args' properties. */
  argLabels: Readonly<Record<string, ArgLabel>>;
  description_en: string;
  description_ar: string;
  /** Throws TransformError for a value it cannot take. `args` has passed `checkTransformArgs`. */
  apply(value: CellValue, args: any): CellValue;
  /** Checks the schema cannot express (a pattern that compiles, a known timezone), run once the schema passes. */
  checkArgs?(args: any): TransformArgsError[];
}

/** The longest text of a value that a message quotes. */
const QUOTED_LENGTH = 40;
const NO_ARGS = Object.freeze({});

function isEmptyScalar(value: Scalar): boolean {
  return value === null || (typeof value === 'string' && isBlank(value));
}

/** Empty: no value, text of spaces (and invisible marks) only, or a list whose items are all empty. */
export function isEmptyCell(value: CellValue): boolean {
  return Array.isArray(value) ? value.every(isEmptyCell) : isEmptyScalar(value);
}

/** A scalar as text: numbers in plain decimal notation, true/false as words, no value as "". */
function textOf(value: Scalar): string {
  if (value === null) return '';
  return typeof value === 'number' ? decimalText(value) : String(value);
}

/** The scalars of a list of lists, in order. */
function flattened(list: CellValue[]): Scalar[] {
  return list.flatMap((item) => (Array.isArray(item) ? flattened(item) : [item]));
}

/** `apply` on every item of a list, at any depth; on the value itself otherwise. */
function eachItem(value: CellValue, apply: (item: Scalar) => CellValue): CellValue {
  return Array.isArray(value) ? value.map((item) => eachItem(item, apply)) : apply(value);
}

/** `edit` on text items only: numbers, true/false and no value are left as they are. */
function eachText(value: CellValue, edit: (text: string) => CellValue): CellValue {
  return eachItem(value, (item) => (typeof item === 'string' ? edit(item) : item));
}

function quoted(value: Scalar): string {
  const characters = Array.from(textOf(value));
  return `"${characters.length > QUOTED_LENGTH ? `${characters.slice(0, QUOTED_LENGTH).join('')}…` : characters.join('')}"`;
}

function refuse(code: string, message: Bilingual): TransformError {
  return new TransformError({ code, message_en: message.en, message_ar: message.ar });
}

/** A value built from args once per args object: a chain's args are the same objects for every row. */
function perArgs<A extends object, R>(build: (args: A) => R): (args: A) => R {
  const built = new WeakMap<A, R>();
  return (args) => {
    if (!built.has(args)) built.set(args, build(args));
    return built.get(args)!;
  };
}

const NONE: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };
const flag = (fallback: boolean) => ({ type: 'boolean', default: fallback });

function object(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

function defineTransform<A extends object>(definition: {
  name: string;
  label_en: string;
  label_ar: string;
  args: JsonSchema;
  argLabels: Readonly<Record<string, ArgLabel>>;
  description_en: string;
  description_ar: string;
  apply(value: CellValue, args: A): CellValue;
  checkArgs?(args: A): TransformArgsError[];
}): TransformDefinition {
  return definition;
}

const label = (en: string, ar: string): ArgLabel => ({ label_en: en, label_ar: ar });

function argsError(field: string, code: string, en: string, ar: string): TransformArgsError {
  return { field: `args.${field}`, code, message_en: en, message_ar: ar };
}

interface TrimArgs {
  collapseSpaces?: boolean;
  keepLineBreaks?: boolean;
}

const trim = defineTransform<TrimArgs>({
  name: 'trim',
  label_en: 'Trim spaces',
  label_ar: 'إزالة المسافات الزائدة',
  args: object({ collapseSpaces: flag(true), keepLineBreaks: flag(false) }),
  argLabels: {
    collapseSpaces: label('Collapse inner spaces', 'دمج المسافات الداخلية'),
    keepLineBreaks: label('Keep line breaks', 'إبقاء فواصل الأسطر'),
  },
  description_en:
    'Removes spaces at the start and the end, including no-break and other Unicode spaces, zero-width characters and the invisible direction marks (LRM, RLM, ALM) that Arabic spreadsheets often carry. Inside the text, each run of spaces, tabs and line breaks becomes one space (collapseSpaces, default true); with keepLineBreaks: true, line breaks are kept (as a single line feed, at most one blank line in a row) and only the spaces within each line are collapsed. Text left empty becomes no value (null). Numbers and true/false are unchanged; in a list, each item is trimmed.',
  description_ar:
    'يزيل المسافات من بداية النص ونهايته، بما فيها المسافة غير القابلة للكسر ومسافات يونيكود الأخرى والمحارف صفرية العرض وعلامات الاتجاه غير المرئية (LRM وRLM وALM) التي تكثر في جداول البيانات العربية. وداخل النص تصبح كل سلسلة من المسافات أو علامات الجدولة أو فواصل الأسطر مسافة واحدة (collapseSpaces، وقيمته الافتراضية true)؛ ومع keepLineBreaks: true تبقى فواصل الأسطر (فاصل سطر واحد، وسطر فارغ واحد على الأكثر متتالياً) وتُدمج المسافات داخل كل سطر فقط. والنص الذي يصبح فارغاً يصير بلا قيمة (null). لا تتغير الأرقام ولا القيم true/false، وفي القائمة يُعالَج كل عنصر على حدة.',
  apply(value, args) {
    return eachText(value, (text) => {
      const trimmed =
        args.collapseSpaces === false ? trimEdges(text) : args.keepLineBreaks ? collapseSpacesKeepingLines(text) : collapseSpaces(text);
      return trimmed === '' ? null : trimmed;
    });
  },
});

const lowercase = defineTransform<object>({
  name: 'lowercase',
  label_en: 'Lower case',
  label_ar: 'أحرف صغيرة',
  args: NONE,
  argLabels: {},
  description_en:
    'Converts letters to lower case by the Unicode rules, the same on every server whatever its language (no Turkish dotless i surprises). Arabic letters have no case and are unchanged. Empty cells, numbers and true/false are unchanged; in a list, each item is converted.',
  description_ar:
    'يحوّل الحروف إلى الحالة الصغيرة وفق قواعد يونيكود، بالنتيجة نفسها على أي خادم أياً كانت لغته. الحروف العربية لا حالة لها فلا تتغير. ولا تتغير الخلايا الفارغة ولا الأرقام ولا القيم true/false، وفي القائمة يُحوَّل كل عنصر على حدة.',
  apply: (value) => eachText(value, (text) => text.toLowerCase()),
});

const uppercase = defineTransform<object>({
  name: 'uppercase',
  label_en: 'Upper case',
  label_ar: 'أحرف كبيرة',
  args: NONE,
  argLabels: {},
  description_en:
    'Converts letters to upper case by the Unicode rules, the same on every server whatever its language (ß becomes SS). Arabic letters have no case and are unchanged. Empty cells, numbers and true/false are unchanged; in a list, each item is converted.',
  description_ar:
    'يحوّل الحروف إلى الحالة الكبيرة وفق قواعد يونيكود، بالنتيجة نفسها على أي خادم أياً كانت لغته (ß تصبح SS). الحروف العربية لا حالة لها فلا تتغير. ولا تتغير الخلايا الفارغة ولا الأرقام ولا القيم true/false، وفي القائمة يُحوَّل كل عنصر على حدة.',
  apply: (value) => eachText(value, (text) => text.toUpperCase()),
});

const normalize_arabic = defineTransform<Partial<ArabicNormalization>>({
  name: 'normalize_arabic',
  label_en: 'Normalise Arabic spelling',
  label_ar: 'توحيد كتابة العربية',
  args: object({
    alef: flag(true),
    yeh: flag(true),
    kaf: flag(true),
    tehMarbuta: flag(false),
    removeDiacritics: flag(true),
    removeTatweel: flag(true),
    digits: { enum: ['latin', 'keep'], default: 'latin' },
  }),
  argLabels: {
    alef: label('Alef forms as ا', 'أشكال الألف ألفًا (ا)'),
    yeh: label('ى and ی as ي', 'ى وی ياءً (ي)'),
    kaf: label('ک as ك', 'ک كافًا (ك)'),
    tehMarbuta: label('ة as ه', 'ة هاءً (ه)'),
    removeDiacritics: label('Remove diacritics', 'حذف الحركات'),
    removeTatweel: label('Remove tatweel (ـ)', 'حذف التطويل (ـ)'),
    digits: label('Digits', 'الأرقام'),
  },
  description_en:
    'Writes Arabic text one way, for matching and search: أ إ آ ٱ become ا (alef); ى and the Persian ی become ي (yeh); the Persian ک becomes ك (kaf); harakat, the superscript alef and Quranic marks (U+064B–U+065F, U+0670, U+06D6–U+06ED) are removed (removeDiacritics) and so is the tatweel ـ (removeTatweel); Arabic-Indic and Persian digits become 0–9 and ٫ ٬ become . and , (digits: "latin"; "keep" leaves them). ة becomes ه only with tehMarbuta: true (off by default: it changes the spelling). Each step is on by default and can be turned off. First, Arabic presentation forms (U+FB50–U+FDFF, U+FE70–U+FEFC), the joined letter shapes that text copied from PDFs or old systems carries, become the ordinary letters (Unicode NFKC on those characters only, so that other text such as ² or ﬁ stays as written). Other text, empty cells and numbers are unchanged; in a list, each item is normalised.',
  description_ar:
    'يوحّد كتابة النص العربي للمطابقة والبحث: تصبح أ إ آ ٱ ألفاً (ا) (alef)، وتصبح ى والياء الفارسية ی ياءً (ي) (yeh)، والكاف الفارسية ک كافاً (ك) (kaf)، وتُحذف الحركات والألف الخنجرية وعلامات المصحف (U+064B–U+065F وU+0670 وU+06D6–U+06ED) (removeDiacritics) والتطويل ـ (removeTatweel)، وتصبح الأرقام العربية الهندية والفارسية 0–9 والفاصلتان ٫ ٬ نقطةً وفاصلة (digits: "latin"، و"keep" يبقيها كما هي). ولا تصبح ة هاءً (ه) إلا مع tehMarbuta: true (معطّل افتراضياً لأنه يغيّر الإملاء). كل خطوة مفعّلة افتراضياً ويمكن تعطيلها. وقبل ذلك تُستبدل بأشكال العرض العربية (U+FB50–U+FDFF وU+FE70–U+FEFC)، وهي أشكال الحروف المتصلة التي يحملها النص المنسوخ من ملفات PDF أو الأنظمة القديمة، الحروفُ العادية (بتطبيق NFKC على هذه المحارف وحدها، فيبقى غيرها مثل ² أو ﬁ كما كُتب). لا يتغير غير ذلك من النص ولا الخلايا الفارغة ولا الأرقام، وفي القائمة يُعالَج كل عنصر على حدة.',
  apply: (value, args) => eachText(value, (text) => normalizeArabic(text, { ...FULL_ARABIC_NORMALIZATION, ...args })),
});

interface DefaultArgs {
  value: string | number | boolean;
}

const default_ = defineTransform<DefaultArgs>({
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

const map_values = defineTransform<MapValuesArgs>({
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

interface ConcatArgs {
  separator?: string;
  skipEmpty?: boolean;
}

const concat = defineTransform<ConcatArgs>({
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

const split = defineTransform<SplitArgs>({
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

interface RegexReplaceArgs {
  pattern: string;
  replacement: string;
  flags?: string;
}

const PATTERN_MAX_LENGTH = 200;
const DEFAULT_FLAGS = 'g';
const RE2_FLAGS: Readonly<Record<string, number>> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };
/** RE2's size of a compiled pattern, which counted repetitions multiply: `[a-z]{0,100}` alone is 200. */
const PATTERN_MAX_SIZE = 1_000;
/**
 * RE2 finds a match in time proportional to the value's length times the pattern's size, up to about
 * 400 ns per unit with re2js (measured: `(.*)` over 166,000 characters took 400 ms). A value longer than
 * this over the pattern's size is refused unmatched, so that no one search takes more than about 100 ms.
 */
const MATCH_WORK_MAX = 250_000;
/**
 * Each search is linear, but a pattern that reads far past each short match (`a*b|a` over a run of a)
 * searches the rest of the value again for every match: the searches after the first stop after this
 * much of the thread's CPU time (not the wall clock's, so that a busy server refuses no more values).
 */
const MATCH_TIME_MAX_MS = 50;
/** A replaced value's longest text: `$'` and `` $` `` copy the rest of the value into every match's replacement. */
const RESULT_MAX_LENGTH = 1_000_000;

/** What `\s` matches in JavaScript: every Unicode space and line break (RE2's `\s` is ASCII only). */
const SPACE_RANGES: readonly (readonly [number, number])[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

/** Ranges as the inside of an RE2 character class. */
function classText(ranges: readonly (readonly [number, number])[]): string {
  const code = (point: number) => `\\x{${point.toString(16)}}`;
  return ranges.map(([from, to]) => (from === to ? code(from) : `${code(from)}-${code(to)}`)).join('');
}

/** The code points outside `ranges` (ascending, apart): what a negated class matches. */
function outside(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const gaps: [number, number][] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) gaps.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= 0x10ffff) gaps.push([next, 0x10ffff]);
  return gaps;
}

const SPACE_CLASS = classText(SPACE_RANGES);
/** `\S` inside a class, where RE2 cannot negate a part of it. */
const NON_SPACE_CLASS = classText(outside(SPACE_RANGES));

/** The general categories' long names (and other aliases) JavaScript accepts, which RE2 writes short. */
const CATEGORY_NAMES = new Map(
  Object.entries({
    C: ['Other'],
    Cc: ['Control', 'cntrl'],
    Cf: ['Format'],
    Cn: ['Unassigned'],
    Co: ['Private_Use'],
    Cs: ['Surrogate'],
    L: ['Letter'],
    LC: ['Cased_Letter'],
    Ll: ['Lowercase_Letter'],
    Lm: ['Modifier_Letter'],
    Lo: ['Other_Letter'],
    Lt: ['Titlecase_Letter'],
    Lu: ['Uppercase_Letter'],
    M: ['Mark', 'Combining_Mark'],
    Mc: ['Spacing_Mark'],
    Me: ['Enclosing_Mark'],
    Mn: ['Nonspacing_Mark'],
    N: ['Number'],
    Nd: ['Decimal_Number', 'digit'],
    Nl: ['Letter_Number'],
    No: ['Other_Number'],
    P: ['Punctuation', 'punct'],
    Pc: ['Connector_Punctuation'],
    Pd: ['Dash_Punctuation'],
    Pe: ['Close_Punctuation'],
    Pf: ['Final_Punctuation'],
    Pi: ['Initial_Punctuation'],
    Po: ['Other_Punctuation'],
    Ps: ['Open_Punctuation'],
    S: ['Symbol'],
    Sc: ['Currency_Symbol'],
    Sk: ['Modifier_Symbol'],
    Sm: ['Math_Symbol'],
    So: ['Other_Symbol'],
    Z: ['Separator'],
    Zl: ['Line_Separator'],
    Zp: ['Paragraph_Separator'],
    Zs: ['Space_Separator'],
  }).flatMap(([short, long]) => long.map((name) => [name, short] as const)),
);

/** `\p{…}`'s name as RE2 writes it: `Script=Arabic` and `sc=Arabic` as `Arabic`, `gc=Letter` and `Letter` as `L`. */
function re2ClassName(name: string): string {
  const [property, value] = name.includes('=') ? name.split('=', 2) : ['', name];
  if (property === 'Script' || property === 'sc') return value;
  if (property === '' || property === 'General_Category' || property === 'gc') return CATEGORY_NAMES.get(value) ?? value;
  return name;
}

/**
 * A pattern's pieces: the escapes translated below, `\Q…\E` (literal in RE2), a POSIX class inside a
 * class, a lookaround opener, or any one character. Every position matches one of them.
 */
const PATTERN_PIECES =
  /\\[pP]\{[^}]*\}|\\u\{[0-9A-Fa-f]+\}|\\u[dD][89aAbB][0-9A-Fa-f]{2}\\u[dD][c-fC-F][0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\Q[^]*?(?:\\E|$)|\\k<|\\[^]|\[:\^?[a-z]+:\]|\(\?<?[=!]|[^]/gu;

/**
 * The pattern as RE2 reads it, patterns written for JavaScript keeping their meaning: `\p{Script=Arabic}`
 * and `\p{gc=Letter}` become `\p{Arabic}` and `\p{L}`, `\u{…}` and `\uXXXX` become `\x{…}`, and `\s`
 * matches every Unicode space as in JavaScript. What RE2 cannot express at all (lookaround,
 * backreferences) is refused with how to do without it.
 */
function re2Source(pattern: string): string | TransformArgsError {
  let source = '';
  // RE2 (as JavaScript) reads a `]` right after `[` or `[^` as a character of the class.
  let inClass: 'start' | 'negated' | 'inside' | false = false;
  for (const piece of pattern.match(PATTERN_PIECES) ?? []) {
    if (inClass) {
      if (piece === ']' && inClass === 'inside') inClass = false;
      else inClass = inClass === 'start' && piece === '^' ? 'negated' : 'inside';
    } else if (piece === '[') {
      inClass = 'start';
    } else if (/^\\(?:[1-9]|k<)$/.test(piece)) {
      return argsError(
        'pattern',
        'pattern_unsupported',
        `RE2, which runs every pattern in time proportional to the text, cannot refer back to a group as ${piece}${piece === '\\k<' ? 'name>' : ''} does: no pattern can require the same text twice. To put a group's text in the result, use $1 or $<name> in replacement.`,
        `لا يستطيع RE2، الذي ينفّذ كل نمط في وقت يتناسب مع طول النص، الرجوع إلى مجموعة سابقة كما يفعل ${piece}${piece === '\\k<' ? 'name>' : ''}: لا يمكن أن يشترط النمط تكرار النص نفسه. ولإدراج نص مجموعة في النتيجة استخدم $1 أو $<name> في replacement.`,
      );
    } else if (piece.startsWith('(?')) {
      return argsError(
        'pattern',
        'pattern_unsupported',
        `RE2, which runs every pattern in time proportional to the text, cannot look around a match as ${piece}…) does: match the text around it too and put it back with a group, e.g. pattern "price(:)" with replacement "cost$1" where JavaScript would write "price(?=:)".`,
        `لا يستطيع RE2، الذي ينفّذ كل نمط في وقت يتناسب مع طول النص، فحص ما حول المطابقة كما يفعل ${piece}…): طابِق النص المحيط أيضاً وأعِده بمجموعة، مثل النمط "price(:)" مع replacement "cost$1" بدلاً من "price(?=:)" في JavaScript.`,
      );
    }
    source += re2Piece(piece, inClass !== false);
  }
  return source;
}

function re2Piece(piece: string, inClass: boolean): string {
  if (/^\\[pP]\{/.test(piece)) return `${piece.slice(0, 3)}${re2ClassName(piece.slice(3, -1))}}`;
  if (piece.startsWith('\\u{')) return `\\x${piece.slice(2)}`;
  if (piece.startsWith('\\u')) {
    // One code unit, or a surrogate pair: JavaScript's Unicode mode reads \uD83D\uDE00 as one character.
    const units = piece
      .split('\\u')
      .slice(1)
      .map((unit) => parseInt(unit, 16));
    return `\\x{${String.fromCharCode(...units)
      .codePointAt(0)!
      .toString(16)}}`;
  }
  if (piece === '\\s') return inClass ? SPACE_CLASS : `[${SPACE_CLASS}]`;
  if (piece === '\\S') return inClass ? NON_SPACE_CLASS : `[^${SPACE_CLASS}]`;
  return piece;
}

interface CompiledPattern {
  regex: RE2JS;
  global: boolean;
  named: Record<string, number>;
  /** The longest value the pattern is matched against (MATCH_WORK_MAX over its size). */
  maxValueLength: number;
}

/** The pattern with its flags as RE2 runs it, or why it cannot run: the mapping check's refusal, and a row's at run time. */
const compiledPattern = perArgs((args: RegexReplaceArgs): CompiledPattern | TransformArgsError => {
  const flags = args.flags ?? DEFAULT_FLAGS;
  if (!/^[gims]*$/.test(flags) || new Set(flags).size !== flags.length) {
    return argsError(
      'flags',
      'flags_invalid',
      'flags may only hold the letters g, i, m and s, each at most once.',
      'لا يجوز أن يحوي flags إلا الأحرف g وi وm وs، كلاً منها مرة واحدة على الأكثر.',
    );
  }
  const source = re2Source(args.pattern);
  if (typeof source !== 'string') return source;
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(
      source,
      [...flags].reduce((all, flag) => all | (RE2_FLAGS[flag] ?? 0), 0),
    );
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    const reason = error instanceof RE2JSSyntaxException ? `${error.getDescription()}: ${error.getPattern()}` : error.message;
    const classHint = /\\[pP]/.test(reason)
      ? {
          en: ' Unicode classes are written \\p{L}, \\p{Lu}, \\p{Nd} (or \\p{Letter}…), scripts \\p{Arabic} or \\p{Script=Arabic}.',
          ar: ' تُكتب فئات يونيكود \\p{L} و\\p{Lu} و\\p{Nd} (أو \\p{Letter}…)، والخطوط \\p{Arabic} أو \\p{Script=Arabic}.',
        }
      : { en: '', ar: '' };
    return argsError(
      'pattern',
      'pattern_invalid',
      `The pattern is not a valid regular expression in RE2's syntax (${reason}).${classHint.en}`,
      `النمط ليس تعبيراً نمطياً صالحاً بصياغة RE2 ‏(${reason}).${classHint.ar}`,
    );
  }
  const size = regex.programSize();
  if (size > PATTERN_MAX_SIZE) {
    return argsError(
      'pattern',
      'pattern_too_large',
      `The pattern is too large once its counted repetitions are written out: ${size} steps, at most ${PATTERN_MAX_SIZE} ({0,100} repeats its part 100 times). Use * or + where no exact count is needed, or smaller counts.`,
      `النمط كبير جداً بعد فكّ التكرارات المعدودة فيه: ${size} خطوة، والحد ${PATTERN_MAX_SIZE} (‏{0,100} يكرر جزأه 100 مرة). استخدم * أو + حيث لا يلزم عدد محدد، أو أعداداً أصغر.`,
    );
  }
  return { regex, global: flags.includes('g'), named: regex.namedGroups(), maxValueLength: Math.floor(MATCH_WORK_MAX / size) };
});

function regexProblems(args: RegexReplaceArgs): TransformArgsError[] {
  const compiled = compiledPattern(args);
  return 'code' in compiled ? [compiled] : [];
}

/**
 * `replacement` for the current match, `$$`, `$&`, `` $` ``, `$'`, `$1`…`$99` and `$<name>` read exactly as
 * String.prototype.replace reads them (ECMAScript's GetSubstitution).
 */
function expandReplacement(replacement: string, match: Matcher, text: string, named: Record<string, number>): string {
  if (!replacement.includes('$')) return replacement;
  const groups = match.groupCount();
  const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';
  let expanded = '';
  for (let index = 0; index < replacement.length; index++) {
    const next = replacement[index + 1];
    if (replacement[index] !== '$' || next === undefined) {
      expanded += replacement[index];
    } else if (next === '$' || next === '&' || next === '`' || next === "'") {
      if (next === '$') expanded += '$';
      else if (next === '&') expanded += match.group() ?? '';
      else expanded += next === '`' ? text.slice(0, match.start()) : text.slice(match.end());
      index++;
    } else if (isDigit(next)) {
      const twoDigits = isDigit(replacement[index + 2]) ? Number(replacement.slice(index + 1, index + 3)) : undefined;
      const [group, digits] = twoDigits !== undefined && twoDigits <= groups ? [twoDigits, 2] : [Number(next), 1];
      expanded += group >= 1 && group <= groups ? (match.group(group) ?? '') : replacement.slice(index, index + 1 + digits);
      index += digits;
    } else if (next === '<' && Object.keys(named).length > 0 && replacement.includes('>', index + 2)) {
      const close = replacement.indexOf('>', index + 2);
      const name = replacement.slice(index + 2, close);
      expanded += Object.hasOwn(named, name) ? (match.group(name) ?? '') : '';
      index = close;
    } else {
      expanded += '$';
    }
  }
  return expanded;
}

function replaceMatches(text: string, pattern: CompiledPattern, replacement: string): string {
  if (text.length > pattern.maxValueLength) {
    throw refuse('value_too_long_for_pattern', {
      en: `This value has ${text.length} characters, more than this pattern can be matched against (${pattern.maxValueLength}; the larger the pattern, the shorter the values it takes). Use a smaller pattern, or shorten the value first.`,
      ar: `في هذه القيمة ${text.length} محرفاً، أكثر مما يمكن مطابقة هذا النمط عليه (${pattern.maxValueLength}؛ وكلما كبر النمط قصرت القيم التي يقبلها). استخدم نمطاً أصغر، أو اختصر القيمة أولاً.`,
    });
  }
  const matcher = pattern.regex.matcher(text);
  let replaced = '';
  let copied = 0;
  let firstFound: { at: number; cpu: NodeJS.CpuUsage } | undefined;
  while (matcher.find()) {
    // The wall clock first: it is cheaper to read, and never behind the CPU time.
    if (!firstFound) firstFound = { at: performance.now(), cpu: process.threadCpuUsage() };
    else if (
      performance.now() - firstFound.at > MATCH_TIME_MAX_MS &&
      cpuMilliseconds(process.threadCpuUsage(firstFound.cpu)) > MATCH_TIME_MAX_MS
    ) {
      throw refuse('pattern_too_slow', {
        en: `Matching this value (${text.length} characters) took over ${MATCH_TIME_MAX_MS} ms and was stopped: the pattern reads far past each short match, as a*b|a does over a long run of a. Write it so that what it tries first cannot run past the text it replaces.`,
        ar: `استغرقت مطابقة هذه القيمة (${text.length} محرفاً) أكثر من ${MATCH_TIME_MAX_MS} ملّي ثانية فأُوقفت: النمط يقرأ أبعد بكثير من كل مطابقة قصيرة، كما يفعل a*b|a في سلسلة طويلة من a. اكتبه بحيث لا يتجاوز ما يجرّبه أولاً النص الذي يستبدله.`,
      });
    }
    replaced += text.slice(copied, matcher.start()) + expandReplacement(replacement, matcher, text, pattern.named);
    copied = matcher.end();
    if (replaced.length > RESULT_MAX_LENGTH) throw resultTooLong();
    if (!pattern.global) break;
  }
  replaced += text.slice(copied);
  if (replaced.length > RESULT_MAX_LENGTH) throw resultTooLong();
  return replaced;
}

function cpuMilliseconds(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

function resultTooLong(): TransformError {
  return refuse('result_too_long', {
    en: `Replacing in this value would make it longer than ${RESULT_MAX_LENGTH} characters.`,
    ar: `الاستبدال في هذه القيمة يجعلها أطول من ${RESULT_MAX_LENGTH} محرف.`,
  });
}

const regex_replace = defineTransform<RegexReplaceArgs>({
  name: 'regex_replace',
  label_en: 'Find and replace (pattern)',
  label_ar: 'بحث واستبدال (نمط)',
  args: object(
    {
      pattern: { type: 'string', minLength: 1, maxLength: PATTERN_MAX_LENGTH },
      replacement: { type: 'string', maxLength: 1000 },
      flags: { type: 'string', maxLength: 4, default: DEFAULT_FLAGS },
    },
    ['pattern', 'replacement'],
  ),
  argLabels: {
    pattern: label('Pattern (RE2)', 'النمط (RE2)'),
    replacement: label('Replace with', 'الاستبدال بـ'),
    flags: label('Flags', 'الخيارات (flags)'),
  },
  description_en:
    'Replaces what the regular expression pattern matches with replacement ("" deletes it), in which $1, $2… and $<name> insert a captured group, $& the whole match and $$ a "$". Patterns run on RE2, in time proportional to the text whatever the pattern, so the syntax is RE2’s, which reads most JavaScript patterns alike but has no lookaround ((?=…), (?!…), (?<=…), (?<!…)) and no backreferences (\\1, \\k<name>), and ends a line only at a line feed for . and, with m, for ^ and $. Unicode classes are \\p{L}, \\p{Lu}, \\p{Nd} or their long names (\\p{Letter}), scripts \\p{Arabic} or \\p{Script=Arabic}; \\s is any white space, Unicode spaces included; groups may be named (?<name>…). flags may hold g (every match; the default when flags is not given), i (ignore case), m (^ and $ at each line) and s (. also matches line breaks). Refused when the mapping is saved: a pattern that does not compile, is longer than 200 characters, or is larger than 1,000 steps once its counted repetitions are written out ([a-z]{0,100} alone takes 200). Matching takes time in proportion to the value’s length times the pattern’s size, so a value may have at most 250,000 ÷ that size characters (62,500 for \\s+), searching on past its first match may take at most 50 ms of processor time, and the result may have at most 1,000,000 characters; otherwise the value is rejected (value_too_long_for_pattern, pattern_too_slow, result_too_long). Empty cells are unchanged; a number or true/false is matched as its text and gives text; in a list, each item is replaced.',
  description_ar:
    'يستبدل بما يطابقه التعبير النمطي pattern النصَّ replacement (والنص "" يحذفه)، وفيه تُدرج $1 و$2… و$<name> المجموعة الملتقطة و$& المطابقة كلها و$$ المحرف "$". تُنفَّذ الأنماط بمحرك RE2 في وقت يتناسب مع طول النص أياً كان النمط، فالصياغة صياغة RE2، وهي تقرأ أغلب أنماط JavaScript كما هي، لكن ليس فيها فحص ما حول المطابقة ((?=…) و(?!…) و(?<=…) و(?<!…)) ولا الرجوع إلى مجموعة سابقة (\\1 و\\k<name>)، ولا ينهي السطرَ فيها إلا محرف السطر الجديد (line feed) عند النقطة وعند ^ و$ مع m. وتُكتب فئات يونيكود \\p{L} و\\p{Lu} و\\p{Nd} أو بأسمائها الطويلة (\\p{Letter})، والخطوط \\p{Arabic} أو \\p{Script=Arabic}؛ و\\s أي مسافة بما فيها مسافات يونيكود؛ ويجوز تسمية المجموعات (?<name>…). ويجوز أن يحوي flags الحرف g (كل المطابقات، وهو الافتراضي إن لم يُحدَّد flags) وi (إهمال حالة الأحرف) وm (‏^ و$ عند كل سطر) وs (النقطة تطابق فواصل الأسطر أيضاً). ويُرفض عند حفظ الربط النمط الذي لا يصح، أو يزيد على 200 محرف، أو يتجاوز 1000 خطوة بعد فكّ تكراراته المعدودة (‏[a-z]{0,100} وحده 200 خطوة). ويتناسب وقت المطابقة مع طول القيمة مضروباً في حجم النمط، فلا تزيد القيمة على 250000 ÷ ذلك الحجم محرفاً (62500 للنمط \\s+)، ولا يتجاوز البحث بعد أول مطابقة 50 ملّي ثانية من وقت المعالج، ولا تزيد النتيجة على 1000000 محرف، وإلا رُفضت القيمة (value_too_long_for_pattern وpattern_too_slow وresult_too_long). لا تتغير الخلايا الفارغة، والرقم أو true/false يُطابَق نصاً وتكون النتيجة نصاً، وفي القائمة يُعالَج كل عنصر على حدة.',
  checkArgs: regexProblems,
  apply(value, args) {
    const pattern = compiledPattern(args);
    if ('code' in pattern) throw refuse(pattern.code, { en: pattern.message_en, ar: pattern.message_ar });
    return eachItem(value, (item) => (isEmptyScalar(item) ? item : replaceMatches(textOf(item), pattern, args.replacement)));
  },
});

const NUMBER_FAILURES: Record<NumberProblem, (value: Scalar, decimals: number) => Bilingual> = {
  not_a_number: (value) => ({ en: `${quoted(value)} is not a number.`, ar: `${quoted(value)} ليس رقماً.` }),
  not_an_integer: (value) => ({
    en: `${quoted(value)} is not a whole number.`,
    ar: `${quoted(value)} ليس عدداً صحيحاً.`,
  }),
  too_many_decimals: (value, decimals) => ({
    en: `${quoted(value)} has more decimal places than the currency allows (${decimals}); amounts are never rounded.`,
    ar: `${quoted(value)} فيه منازل عشرية أكثر مما تسمح به العملة (${decimals})، ولا تُقرَّب المبالغ أبداً.`,
  }),
  out_of_range: (value, decimals) => {
    const [lowest, highest] = [decimalAmount(INTEGER_MIN, decimals), decimalAmount(INTEGER_MAX, decimals)];
    return {
      en: `${quoted(value)} is out of range: it must be between ${lowest} and ${highest}.`,
      // The left-to-right mark keeps the minus sign before the digits in right-to-left text.
      ar: `${quoted(value)} خارج النطاق: يجب أن يكون بين \u200E${lowest} و${highest}.`,
    };
  },
};

/** Empty cells become no value; anything else is read by `read`, whose problem rejects the row. */
function readNumber(value: CellValue, read: (item: string | number) => number | NumberProblem, decimals = 0): CellValue {
  return eachItem(value, (item) => {
    if (item === null || isEmptyScalar(item)) return null;
    const result = typeof item === 'boolean' ? 'not_a_number' : read(item);
    if (typeof result === 'number') return result;
    throw refuse(result, NUMBER_FAILURES[result](item, decimals));
  });
}

const THOUSANDS = { enum: [...THOUSANDS_SEPARATORS] };

interface ToIntegerArgs {
  thousandsSeparator?: ThousandsSeparator;
}

const to_integer = defineTransform<ToIntegerArgs>({
  name: 'to_integer',
  label_en: 'Whole number',
  label_ar: 'عدد صحيح',
  args: object({ thousandsSeparator: { ...THOUSANDS, default: ',' } }),
  argLabels: { thousandsSeparator: label('Thousands separator', 'فاصل الآلاف') },
  description_en:
    'Reads a whole number, such as a stock level. Accepts Latin, Arabic-Indic (٠–٩) and Persian (۰–۹) digits, a leading + or -, thousands in groups of three separated by thousandsSeparator (default ",", as in 1,234; or ".", " ", "\'", or "" for none) or by the Arabic ٬, and a decimal part of zeros only (12.00; the decimal mark is "." or the Arabic ٫, or "," when thousandsSeparator is "."). Refuses other text (not_a_number), a fraction such as 12.5 (not_an_integer: use to_decimal_minor for amounts) and numbers beyond -2,147,483,648…2,147,483,647 (out_of_range). A number cell must be whole. An empty cell becomes no value (null); in a list, each item is read.',
  description_ar:
    'يقرأ عدداً صحيحاً مثل كمية المخزون. يقبل الأرقام اللاتينية والعربية الهندية (٠–٩) والفارسية (۰–۹)، وإشارة + أو - في البداية، والآلاف في مجموعات من ثلاثة أرقام يفصلها thousandsSeparator (الافتراضي ","، مثل 1,234؛ أو "." أو " " أو "\'"، أو "" بلا فاصل) أو الفاصل العربي ٬، وجزءاً عشرياً من الأصفار فقط (12.00؛ والفاصل العشري "." أو الفاصل العربي ٫، أو "," إذا كان thousandsSeparator هو "."). ويرفض أي نص آخر (not_a_number)، والكسر مثل 12.5 (not_an_integer: استخدم to_decimal_minor للمبالغ)، وما تجاوز النطاق ‎-2,147,483,648…2,147,483,647 (out_of_range). ويجب أن تكون الخلية الرقمية عدداً صحيحاً. والخلية الفارغة تصبح بلا قيمة (null)، وفي القائمة يُقرأ كل عنصر على حدة.',
  apply: (value, args) => readNumber(value, (item) => parseInteger(item, args.thousandsSeparator ?? ',')),
});

interface ToDecimalMinorArgs {
  decimals?: number;
  decimalSeparator?: DecimalSeparator;
  thousandsSeparator?: ThousandsSeparator;
}

const DEFAULT_DECIMALS = 2;
const thousandsSeparatorOf = (args: ToDecimalMinorArgs) => args.thousandsSeparator ?? (args.decimalSeparator === ',' ? '.' : ',');

const to_decimal_minor = defineTransform<ToDecimalMinorArgs>({
  name: 'to_decimal_minor',
  label_en: 'Amount in minor units',
  label_ar: 'مبلغ بالوحدات الصغرى',
  args: object({
    decimals: { type: 'integer', minimum: 0, maximum: 4, default: DEFAULT_DECIMALS },
    decimalSeparator: { enum: ['.', ','], default: '.' },
    thousandsSeparator: THOUSANDS,
  }),
  argLabels: {
    decimals: label('Decimal places of the currency', 'المنازل العشرية للعملة'),
    decimalSeparator: label('Decimal mark', 'الفاصل العشري'),
    thousandsSeparator: label('Thousands separator', 'فاصل الآلاف'),
  },
  description_en:
    'Reads an amount and gives it in minor units (halalas, fils, cents) as a whole number, exactly, with no floating point: 19.99 → 1999, 1,234.5 → 123450, ٣٫٥ → 350. decimals is the number of minor digits of the currency (default 2; 3 for KWD, BHD, OMR and JOD; 0 for JPY). The decimal mark is decimalSeparator (default ".") or the Arabic ٫; thousands, in groups of three, are separated by thousandsSeparator (default ",", or "." when decimalSeparator is ",") or by the Arabic ٬. A currency symbol, ISO code or Arabic abbreviation before or after the number is ignored (SAR, USD, SR, ر.س, د.إ, ريال, ﷼, $, €), and Arabic-Indic digits and a leading + or - are read. More decimal places than decimals are refused (too_many_decimals), never rounded; extra zeros (19.990) are fine. A number cell from JSON or XLSX is read in its shortest exact decimal form, so 19.99 gives 1999 while 0.30000000000000004 (what 0.1 + 0.2 computes to) is refused. Results beyond ±2,147,483,647 minor units (±21,474,836.47 with 2 decimals) are refused (out_of_range), and other text too (not_a_number). An empty cell becomes no value (null); in a list, each item is read.',
  description_ar:
    'يقرأ مبلغاً ويعطيه بالوحدات الصغرى (الهللات أو الفلوس أو السنتات) عدداً صحيحاً، بدقة تامة ودون حساب بالفاصلة العائمة: 19.99 ← 1999، و1,234.5 ← 123450، و٣٫٥ ← 350. وdecimals عدد خانات الوحدة الصغرى في العملة (الافتراضي 2؛ و3 للدينار الكويتي والبحريني والأردني والريال العماني؛ و0 للين الياباني). والفاصل العشري decimalSeparator (الافتراضي ".") أو الفاصل العربي ٫، ويفصل الآلافَ في مجموعات من ثلاثة أرقام thousandsSeparator (الافتراضي ","، أو "." إذا كان decimalSeparator هو ",") أو الفاصل العربي ٬. ويُتجاهل رمز العملة أو رمزها الدولي أو اختصارها العربي قبل الرقم أو بعده (SAR وUSD وSR ور.س ود.إ وريال و﷼ و$ و€)، وتُقرأ الأرقام العربية الهندية وإشارة + أو - في البداية. ويُرفض ما زادت منازله العشرية على decimals (too_many_decimals) ولا يُقرَّب أبداً، أما الأصفار الزائدة (19.990) فمقبولة. والخلية الرقمية من JSON أو XLSX تُقرأ بأقصر صيغة عشرية مطابقة لها، فتعطي 19.99 القيمة 1999 بينما يُرفض 0.30000000000000004 (ناتج 0.1 + 0.2). ويُرفض ما تجاوز ±2,147,483,647 وحدة صغرى (±21,474,836.47 مع منزلتين عشريتين) (out_of_range) وأي نص آخر (not_a_number). والخلية الفارغة تصبح بلا قيمة (null)، وفي القائمة يُقرأ كل عنصر على حدة.',
  checkArgs(args) {
    if (thousandsSeparatorOf(args) !== (args.decimalSeparator ?? '.')) return [];
    return [
      argsError(
        'thousandsSeparator',
        'separators_clash',
        'thousandsSeparator must differ from decimalSeparator.',
        'يجب أن يختلف thousandsSeparator عن decimalSeparator.',
      ),
    ];
  },
  apply(value, args) {
    const decimals = args.decimals ?? DEFAULT_DECIMALS;
    const format = { decimalSeparator: args.decimalSeparator ?? '.', thousandsSeparator: thousandsSeparatorOf(args) };
    return readNumber(value, (item) => parseMinorUnits(item, format, decimals), decimals);
  },
});

interface ParseDateArgs {
  formats: string[];
  timezone?: string;
  output?: DateOutput;
  numbers?: NumberDates;
}

function dateFailure(problem: DateProblem, value: Scalar, formats: readonly string[]): Bilingual {
  const listed = formats.map((format) => `"${format}"`).join(', ');
  switch (problem) {
    case 'invalid_date':
      return {
        en: `${quoted(value)} is not a date that exists (such as 31/02).`,
        ar: `${quoted(value)} ليس تاريخاً موجوداً في التقويم (مثل 31/02).`,
      };
    case 'out_of_range':
      return {
        en: `${quoted(value)} is out of range: the year must be between 1000 and 9999.`,
        ar: `${quoted(value)} خارج النطاق: يجب أن تكون السنة بين 1000 و9999.`,
      };
    default:
      return {
        en: `${quoted(value)} is not a date in the format ${listed}.`,
        ar: `${quoted(value)} ليس تاريخاً بالصيغة ${listed}.`,
      };
  }
}

function dateArgsProblems(args: ParseDateArgs): TransformArgsError[] {
  const errors = args.formats.flatMap((format, index): TransformArgsError[] => {
    const problem = formatProblem(format);
    if (!problem) return [];
    const field = `formats[${index}]`;
    if (problem.code === 'format_incomplete') {
      return [
        argsError(
          field,
          'format_incomplete',
          `"${format}" must name the year (yyyy or yy), the month (MM, M or MMM) and the day (dd or d).`,
          `يجب أن تحدد الصيغة "${format}" السنة (yyyy أو yy) والشهر (MM أو M أو MMM) واليوم (dd أو d).`,
        ),
      ];
    }
    return [
      argsError(
        field,
        'format_invalid',
        `"${problem.token}" in "${format}" is not a date token: write the year yyyy, the month MM, the day dd, the hours HH and the minutes mm, and put other letters in single quotes, as in 'T'.`,
        `"${problem.token}" في "${format}" ليس رمزاً من رموز التاريخ: اكتب السنة yyyy والشهر MM واليوم dd والساعات HH والدقائق mm، وضع الأحرف الأخرى بين علامتي اقتباس مفردتين مثل 'T'.`,
      ),
    ];
  });
  if (args.timezone !== undefined && !isKnownTimezone(args.timezone)) {
    errors.push(
      argsError(
        'timezone',
        'timezone_unknown',
        `"${args.timezone}" is not an IANA time zone name such as Asia/Riyadh or Asia/Dubai.`,
        `"${args.timezone}" ليس اسم منطقة زمنية من IANA مثل Asia/Riyadh أو Asia/Dubai.`,
      ),
    );
  }
  return errors;
}

const parse_date = defineTransform<ParseDateArgs>({
  name: 'parse_date',
  label_en: 'Date',
  label_ar: 'تاريخ',
  args: object(
    {
      formats: { type: 'array', minItems: 1, maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 64 } },
      timezone: { type: 'string', minLength: 1, maxLength: 64, default: DEFAULT_TIMEZONE },
      output: { enum: ['date', 'datetime'], default: 'date' },
      numbers: { enum: ['excel_serial', 'unix_seconds', 'unix_milliseconds'], default: 'excel_serial' },
    },
    ['formats'],
  ),
  argLabels: {
    formats: label('Formats (one per line)', 'الصيغ (صيغة في كل سطر)'),
    timezone: label('Time zone', 'المنطقة الزمنية'),
    output: label('Result', 'النتيجة'),
    numbers: label('Number cells are', 'الخلايا الرقمية'),
  },
  description_en:
    'Reads a date by trying formats in order; the first that reads the value wins, so when a value fits two (03/04/2024) put the one your file uses first. Formats use Luxon tokens: yyyy year, yy two-digit year, MM two-digit month, M month in one or two digits, MMM or MMMM month name (English or Arabic), dd two-digit day, d day in one or two digits, HH/H hours, hh/h hours with a (AM/PM), mm minutes, ss seconds, SSS milliseconds, ZZ offset; text in single quotes is literal. Examples: "dd/MM/yyyy", "d.M.yyyy", "yyyy-MM-dd\'T\'HH:mm:ss". The format "ISO" reads any ISO 8601 date or date-time. Arabic-Indic digits are read. A number cell is an Excel date serial (1900 date system; the fraction is the time of day), or seconds or milliseconds since 1970 with numbers: "unix_seconds" or "unix_milliseconds". Times without an offset are in timezone (an IANA name, default Asia/Riyadh). Gives the date as yyyy-MM-dd (output: "date", the default) or the moment as an ISO 8601 UTC date-time (output: "datetime"). Dates that do not exist, such as 31/02/2024, are refused (invalid_date), as are values no format reads (not_a_date) and years outside 1000–9999 (out_of_range). An empty cell becomes no value (null); in a list, each item is read.',
  description_ar:
    'يقرأ تاريخاً بتجربة الصيغ في formats بالترتيب؛ وتُعتمد أول صيغة تقرأ القيمة، فإذا احتملت القيمة صيغتين (03/04/2024) فضع الصيغة التي يستخدمها ملفك أولاً. تُكتب الصيغ برموز Luxon: ‏yyyy السنة، وyy السنة برقمين، وMM الشهر برقمين، وM الشهر برقم أو رقمين، وMMM أو MMMM اسم الشهر (بالإنجليزية أو العربية)، وdd اليوم برقمين، وd اليوم برقم أو رقمين، وHH/H الساعات، وhh/h الساعات مع a ‏(AM/PM)، وmm الدقائق، وss الثواني، وSSS أجزاء الألف من الثانية، وZZ فرق التوقيت؛ والنص بين علامتي اقتباس مفردتين يُقرأ كما هو. أمثلة: "dd/MM/yyyy" و"d.M.yyyy" و"yyyy-MM-dd\'T\'HH:mm:ss". والصيغة "ISO" تقرأ أي تاريخ أو تاريخ ووقت بمعيار ISO 8601. وتُقرأ الأرقام العربية الهندية. والخلية الرقمية رقم تسلسلي لتاريخ Excel (نظام تاريخ 1900، والكسر وقت اليوم)، أو ثوانٍ أو أجزاء ألف من الثانية منذ 1970 مع numbers: "unix_seconds" أو "unix_milliseconds". والأوقات التي لا يُذكر فيها فرق التوقيت تُقرأ بتوقيت timezone (اسم من IANA، الافتراضي Asia/Riyadh). والنتيجة التاريخ بصيغة yyyy-MM-dd ‏(output: "date"، وهو الافتراضي) أو اللحظة بصيغة ISO 8601 بالتوقيت العالمي (output: "datetime"). ويُرفض التاريخ غير الموجود مثل 31/02/2024 ‏(invalid_date)، والقيمة التي لا تقرؤها أي صيغة (not_a_date)، والسنة خارج 1000–9999 ‏(out_of_range). والخلية الفارغة تصبح بلا قيمة (null)، وفي القائمة يُقرأ كل عنصر على حدة.',
  checkArgs: dateArgsProblems,
  apply(value, args) {
    const reading: DateReading = {
      formats: args.formats,
      timezone: args.timezone ?? DEFAULT_TIMEZONE,
      output: args.output ?? 'date',
      numbers: args.numbers ?? 'excel_serial',
    };
    return eachItem(value, (item) => {
      if (isEmptyScalar(item)) return null;
      const result =
        typeof item === 'number' ? dateFromNumber(item, reading) : typeof item === 'string' ? parseDateText(item, reading) : 'not_a_date';
      if (result !== 'not_a_date' && result !== 'invalid_date' && result !== 'out_of_range') return result;
      throw refuse(result, dateFailure(result, item, args.formats));
    });
  },
});

interface SlugifyArgs {
  maxLength?: number;
  ascii?: boolean;
}

/** The store's slug columns are varchar(200). */
const SLUG_MAX_LENGTH = 200;
/** Latin letters that lose nothing to NFKD, so keep no trace in a slug unless spelled out. */
const SPELLED_OUT: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i' };

/**
 * At most `maxLength` UTF-16 units, as the structures' slug check counts them, never half a character;
 * cut after a whole word when one ends in the second half.
 */
function cutSlug(slug: string, maxLength: number): string {
  if (slug.length <= maxLength) return slug;
  const lastUnit = slug.charCodeAt(maxLength - 1);
  const head = slug.slice(0, lastUnit >= 0xd800 && lastUnit <= 0xdbff ? maxLength - 1 : maxLength);
  const lastBreak = slug[head.length] === '-' ? head.length : head.lastIndexOf('-');
  return (lastBreak >= head.length / 2 ? head.slice(0, lastBreak) : head).replace(/-+$/u, '');
}

function slugOf(text: string, args: SlugifyArgs): string {
  const letters = normalizeArabic(text, FULL_ARABIC_NORMALIZATION)
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/gu, '')
    .normalize('NFC')
    .replace(/[ßæœøđðłþı]/gu, (letter) => SPELLED_OUT[letter])
    .replace(/['‘’ʼ`]/gu, '');
  const separated = args.ascii ? letters.replace(/[^a-z0-9]+/gu, '-') : letters.replace(/[^\p{Ll}\p{Lo}\p{Nd}]+/gu, '-');
  return cutSlug(separated.replace(/^-+|-+$/gu, ''), args.maxLength ?? SLUG_MAX_LENGTH);
}

const slugify = defineTransform<SlugifyArgs>({
  name: 'slugify',
  label_en: 'Make a slug',
  label_ar: 'إنشاء معرّف نصي (slug)',
  args: object({
    maxLength: { type: 'integer', minimum: 1, maximum: SLUG_MAX_LENGTH, default: SLUG_MAX_LENGTH },
    ascii: flag(false),
  }),
  argLabels: {
    maxLength: label('Longest slug (characters)', 'أطول معرّف (محارف)'),
    ascii: label('Latin letters and digits only', 'حروف لاتينية وأرقام فقط'),
  },
  description_en:
    'Makes the slug of a web address from text such as a product name: lower case, accents removed (é → e, ß → ss), apostrophes dropped (men’s → mens), Arabic-Indic digits as 0–9, every run of spaces and punctuation as one "-", no "-" at either end, at most maxLength characters (default 200, the store’s limit), cut after a whole word where possible. Arabic and other letters are kept, Arabic normalised as normalize_arabic does, since the store’s slugs may be in any script ("عطر-العود-الفاخر"); with ascii: true only a–z and 0–9 are kept. A value with no letter or digit is refused (empty_slug). Empty cells stay as they are; a number is made a slug as its text; in a list, each item is made a slug.',
  description_ar:
    'ينشئ المعرّف النصي لعنوان الصفحة (slug) من نص مثل اسم المنتج: أحرف صغيرة، ودون علامات التشكيل اللاتينية (é ← e وß ← ss)، ودون الفواصل العليا (men’s ← mens)، والأرقام العربية الهندية 0–9، وكل سلسلة من المسافات وعلامات الترقيم "-" واحدة، ولا "-" في أي من الطرفين، وبحد أقصى maxLength محرفاً (الافتراضي 200، وهو حد المتجر)، ويُقطع بعد كلمة كاملة حيث أمكن. وتبقى الحروف العربية وغيرها، وتُوحَّد كتابة العربية كما يفعل normalize_arabic، لأن المعرّفات في المتجر يجوز أن تكون بأي خط ("عطر-العود-الفاخر")؛ ومع ascii: true لا يبقى إلا a–z و0–9. وتُرفض القيمة التي ليس فيها حرف ولا رقم (empty_slug). والخلايا الفارغة تبقى كما هي، والرقم يُعامل نصاً، وفي القائمة يُعالَج كل عنصر على حدة.',
  apply(value, args) {
    return eachItem(value, (item) => {
      if (isEmptyScalar(item)) return item;
      const slug = slugOf(textOf(item), args);
      if (slug !== '') return slug;
      throw refuse('empty_slug', {
        en: `${quoted(item)} has no letter or digit to make a slug from.`,
        ar: `${quoted(item)} ليس فيه حرف ولا رقم يُنشأ منه المعرّف النصي (slug).`,
      });
    });
  },
});

/** In the order a mapping usually needs them: clean the text, settle its values, shape lists, read typed values. */
export const TRANSFORMS: readonly TransformDefinition[] = Object.freeze([
  trim,
  lowercase,
  uppercase,
  normalize_arabic,
  default_,
  map_values,
  concat,
  split,
  regex_replace,
  to_integer,
  to_decimal_minor,
  parse_date,
  slugify,
]);

const BY_NAME = new Map(TRANSFORMS.map((transform) => [transform.name, transform]));

export function transformNamed(name: string): TransformDefinition | undefined {
  return BY_NAME.get(name);
}

/** The most errors one transform's args report: a map of thousands of bad values needs no thousand lines. */
const ARGS_ERRORS_MAX = 20;

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: true });
const validators = new Map<string, ValidateFunction>();

function validatorOf(transform: TransformDefinition): ValidateFunction {
  let validate = validators.get(transform.name);
  if (!validate) {
    validate = ajv.compile(transform.args);
    validators.set(transform.name, validate);
  }
  return validate;
}

/** One step of an arg path: `formats`, `.name`, `[0]` or `["Red colour"]`. */
function pathSegment(segment: string, first = false): string {
  if (/^\d+$/.test(segment)) return `[${segment}]`;
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) return first ? segment : `.${segment}`;
  return `[${JSON.stringify(segment)}]`;
}

/** A JSON pointer (`/formats/0`) as the arg path merchants read (`formats[0]`). */
function argPath(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return segments.map((segment, index) => pathSegment(segment, index === 0)).join('');
}

const TYPE_NAMES: Record<string, Bilingual> = {
  string: { en: 'text', ar: 'نصاً' },
  number: { en: 'a number', ar: 'رقماً' },
  integer: { en: 'a whole number', ar: 'عدداً صحيحاً' },
  boolean: { en: 'true or false', ar: 'true أو false' },
  array: { en: 'a list', ar: 'قائمة' },
  object: { en: 'an object of names and values', ar: 'كائناً من أسماء وقيم' },
  null: { en: 'null', ar: 'null' },
};

function schemaMessage(error: ErrorObject, label: string, transformName: string): { code: string } & Bilingual {
  const limit = (error.params as { limit?: number }).limit;
  switch (error.keyword) {
    case 'required':
      return { code: 'arg_required', en: `${label} is required.`, ar: `${label} مطلوب.` };
    case 'additionalProperties':
      return {
        code: 'arg_unknown',
        en: `${label} is not a setting of ${transformName}.`,
        ar: `${label} ليس من إعدادات ${transformName}.`,
      };
    case 'type': {
      const types = String((error.params as { type: string | string[] }).type)
        .split(',')
        .map((type) => TYPE_NAMES[type] ?? { en: type, ar: type });
      return {
        code: 'arg_type',
        en: `${label} must be ${types.map((type) => type.en).join(' or ')}.`,
        ar: `يجب أن يكون ${label} ${types.map((type) => type.ar).join(' أو ')}.`,
      };
    }
    case 'enum': {
      const allowed = ((error.params as { allowedValues: unknown[] }).allowedValues ?? []).map((value) => JSON.stringify(value)).join(', ');
      return { code: 'arg_not_allowed', en: `${label} must be one of ${allowed}.`, ar: `يجب أن يكون ${label} واحداً من ${allowed}.` };
    }
    case 'minLength':
      return limit === 1
        ? { code: 'arg_too_short', en: `${label} must not be empty.`, ar: `يجب ألا يكون ${label} فارغاً.` }
        : { code: 'arg_too_short', en: `${label} must have at least ${limit} characters.`, ar: `يجب ألا يقل ${label} عن ${limit} محارف.` };
    case 'maxLength':
      return {
        code: 'arg_too_long',
        en: `${label} must have at most ${limit} characters.`,
        ar: `يجب ألا يزيد ${label} على ${limit} محرفاً.`,
      };
    case 'minimum':
      return { code: 'arg_too_small', en: `${label} must be at least ${limit}.`, ar: `يجب ألا يقل ${label} عن ${limit}.` };
    case 'maximum':
      return { code: 'arg_too_large', en: `${label} must be at most ${limit}.`, ar: `يجب ألا يزيد ${label} على ${limit}.` };
    case 'minItems':
    case 'minProperties':
      return {
        code: 'arg_too_few',
        en: `${label} must have at least ${limit} ${limit === 1 ? 'entry' : 'entries'}.`,
        ar: `يجب ألا يقل عدد عناصر ${label} عن ${limit}.`,
      };
    case 'maxItems':
    case 'maxProperties':
      return {
        code: 'arg_too_many',
        en: `${label} must have at most ${limit} entries.`,
        ar: `يجب ألا يزيد عدد عناصر ${label} على ${limit}.`,
      };
    default:
      return { code: 'arg_invalid', en: `${label} is not valid.`, ar: `${label} غير صالح.` };
  }
}

function schemaErrors(transformName: string, errors: ErrorObject[]): TransformArgsError[] {
  const reported = new Map<string, TransformArgsError>();
  for (const error of errors) {
    const params = error.params as { missingProperty?: string; additionalProperty?: string };
    const extra = params.missingProperty ?? params.additionalProperty;
    const path = argPath(
      extra === undefined ? error.instancePath : `${error.instancePath}/${extra.replace(/~/g, '~0').replace(/\//g, '~1')}`,
    );
    const { code, en, ar } =
      path === ''
        ? { code: 'arg_type', en: 'The settings must be an object of names and values.', ar: 'يجب أن تكون الإعدادات كائناً من أسماء وقيم.' }
        : schemaMessage(error, `"${path}"`, transformName);
    const field = path === '' ? 'args' : `args${path.startsWith('[') ? '' : '.'}${path}`;
    if (!reported.has(`${field} ${code}`)) reported.set(`${field} ${code}`, { field, code, message_en: en, message_ar: ar });
  }
  return [...reported.values()].slice(0, ARGS_ERRORS_MAX);
}

/** Why the args of transform `name` are not usable, or [] when they are. Missing args mean `{}`. */
export function checkTransformArgs(name: string, args: unknown): TransformArgsError[] {
  const transform = transformNamed(name);
  if (!transform) {
    const known = TRANSFORMS.map((candidate) => candidate.name).join(', ');
    return [
      {
        field: 'name',
        code: 'transform_unknown',
        message_en: `"${name}" is not a transform. Transforms: ${known}.`,
        message_ar: `"${name}" ليس من التحويلات المتاحة. التحويلات: ${known}.`,
      },
    ];
  }
  const validate = validatorOf(transform);
  const value = args ?? NO_ARGS;
  if (!validate(value)) return schemaErrors(transform.name, validate.errors ?? []);
  return transform.checkArgs?.(value) ?? [];
}

/** A value through a chain of transforms (whose args `checkTransformArgs` has passed), in order. */
export function applyTransforms(value: CellValue, chain: readonly { name: string; args?: unknown }[]): CellValue {
  return chain.reduce<CellValue>((current, step) => {
    const transform = transformNamed(step.name);
    if (!transform) {
      throw refuse('transform_unknown', { en: `"${step.name}" is not a transform.`, ar: `"${step.name}" ليس من التحويلات المتاحة.` });
    }
    return transform.apply(current, step.args ?? NO_ARGS);
  }, value);
}
