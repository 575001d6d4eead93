import { type Matcher, RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';
import {
  argsError,
  defineTransform,
  eachItem,
  label,
  object,
  perArgs,
  refuse,
  textOf,
  type TransformArgsError,
  type TransformError,
} from './transform.js';
import { isEmptyScalar } from '../../../infra/tabular/table-rows.js';

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

export const regex_replace = defineTransform<RegexReplaceArgs>({
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
