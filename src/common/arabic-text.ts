/**
 * Text clean-up for what Gulf merchants' files hold: Unicode and no-break spaces, invisible direction
 * marks (spreadsheets typed in Arabic are full of them), Arabic-Indic digits and Arabic letter variants.
 */

/** Whitespace as JavaScript's `\s` knows it (Unicode spaces, NBSP, BOM) plus NEL, which it omits. */
const SPACE = '\\s\\u0085';
/** Characters that show nothing: soft hyphen, Arabic letter mark, zero-width ones, direction marks, embeddings and isolates. */
const INVISIBLE = '\\u00AD\\u061C\\u200B-\\u200F\\u202A-\\u202E\\u2060\\u2066-\\u2069';

const EDGES = new RegExp(`^[${SPACE}${INVISIBLE}]+|[${SPACE}${INVISIBLE}]+$`, 'gu');
const BLANK = new RegExp(`^[${SPACE}${INVISIBLE}]*$`, 'u');
const SPACE_RUN = new RegExp(`[${SPACE}]+`, 'gu');
const LINE_BREAK = /\r\n|[\n\r\u0085\u2028\u2029]/gu;
const HORIZONTAL_SPACE_RUN = /[^\S\n]+/gu;

/** True for text that is empty or holds only spaces and invisible marks. */
export function isBlank(text: string): boolean {
  return BLANK.test(text);
}

/** The text without spaces or invisible marks at either end. */
export function trimEdges(text: string): string {
  return text.replace(EDGES, '');
}

/** Every run of whitespace (line breaks included) as one space, and the ends trimmed. */
export function collapseSpaces(text: string): string {
  return trimEdges(text).replace(SPACE_RUN, ' ');
}

/** Line breaks kept as `\n`, at most one blank line in a row; spaces collapsed and trimmed within each line. */
export function collapseSpacesKeepingLines(text: string): string {
  const lines = text
    .replace(LINE_BREAK, '\n')
    .split('\n')
    .map((line) => trimEdges(line).replace(HORIZONTAL_SPACE_RUN, ' '));
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}

const ARABIC_INDIC_DIGIT = /[\u0660-\u0669\u06F0-\u06F9]/gu;

/**
 * Arabic-Indic (٠–٩) and Eastern Arabic-Indic or Persian (۰–۹) digits as 0–9. The Arabic decimal
 * separator ٫ and thousands separator ٬ are left alone: what they become depends on the reader.
 */
export function latinDigits(text: string): string {
  return text.replace(ARABIC_INDIC_DIGIT, (digit) => {
    const code = digit.charCodeAt(0);
    return String(code - (code >= 0x06f0 ? 0x06f0 : 0x0660));
  });
}

export interface ArabicNormalization {
  /** أ إ آ ٱ ٲ ٳ → ا */
  alef: boolean;
  /** ى and Persian ی → ي */
  yeh: boolean;
  /** Persian ک → ك */
  kaf: boolean;
  /** ة → ه */
  tehMarbuta: boolean;
  /** Harakat, superscript alef and Quranic annotation marks. */
  removeDiacritics: boolean;
  /** ـ */
  removeTatweel: boolean;
  /** Arabic-Indic digits and ٫ ٬ as Latin digits, `.` and `,`. */
  digits: 'latin' | 'keep';
}

export const FULL_ARABIC_NORMALIZATION: ArabicNormalization = {
  alef: true,
  yeh: true,
  kaf: true,
  tehMarbuta: false,
  removeDiacritics: true,
  removeTatweel: true,
  digits: 'latin',
};

/** Arabic presentation forms A (U+FB50–FDFF) and B (U+FE70–FEFC): joined letter shapes from PDFs and legacy systems. */
const PRESENTATION_FORM = /[\uFB50-\uFDFF\uFE70-\uFEFC]/gu;
const DIACRITIC = /[\u064B-\u065F\u0670\u06D6-\u06DC\u06DF-\u06E8\u06EA-\u06ED]/gu;
const TATWEEL = /\u0640/gu;
const ALEF_VARIANT = /[\u0622\u0623\u0625\u0671\u0672\u0673]/gu;
const YEH_VARIANT = /[\u0649\u06CC]/gu;

/**
 * Arabic text in one spelling of each letter, for matching and search. NFKC is applied to the
 * presentation forms only: on the whole text it would also rewrite ², ﬁ or full-width Latin, which
 * are the merchant's to keep. Composing (NFC) first means a hamza typed as a separate mark joins its
 * letter before marks are removed, so أ stays أ when only diacritics are removed.
 */
export function normalizeArabic(text: string, options: ArabicNormalization): string {
  let result = text.replace(PRESENTATION_FORM, (form) => form.normalize('NFKC')).normalize('NFC');
  if (options.removeTatweel) result = result.replace(TATWEEL, '');
  if (options.removeDiacritics) result = result.replace(DIACRITIC, '');
  if (options.alef) result = result.replace(ALEF_VARIANT, '\u0627');
  if (options.yeh) result = result.replace(YEH_VARIANT, '\u064A');
  if (options.kaf) result = result.replace(/\u06A9/gu, '\u0643');
  if (options.tehMarbuta) result = result.replace(/\u0629/gu, '\u0647');
  if (options.digits === 'latin')
    result = latinDigits(result)
      .replace(/\u066B/gu, '.')
      .replace(/\u066C/gu, ',');
  return result;
}
