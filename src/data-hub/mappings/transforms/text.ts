import {
  collapseSpaces,
  collapseSpacesKeepingLines,
  FULL_ARABIC_NORMALIZATION,
  normalizeArabic,
  trimEdges,
  type ArabicNormalization,
} from '../../../common/arabic-text.js';
import { defineTransform, eachItem, eachText, flag, label, NONE, object, quoted, refuse, textOf } from './transform.js';
import { isEmptyScalar } from '../../../infra/tabular/table-rows.js';

interface TrimArgs {
  collapseSpaces?: boolean;
  keepLineBreaks?: boolean;
}

export const trim = defineTransform<TrimArgs>({
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

export const lowercase = defineTransform<object>({
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

export const uppercase = defineTransform<object>({
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

export const normalize_arabic = defineTransform<Partial<ArabicNormalization>>({
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

export const slugify = defineTransform<SlugifyArgs>({
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
