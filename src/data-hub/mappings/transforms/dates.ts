import type { Bilingual } from '../../../common/bilingual.js';
import {
  dateFromNumber,
  DEFAULT_TIMEZONE,
  formatProblem,
  parseDateText,
  type DateOutput,
  type DateProblem,
  type DateReading,
  type NumberDates,
} from '../parse-date.js';
import { argsError, defineTransform, eachItem, label, object, quoted, refuse, type TransformArgsError } from './transform.js';
import { isEmptyScalar, type Scalar } from '../../../infra/tabular/table-rows.js';
import { isTimezone } from '../../../common/validation/schedule-fields.js';

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
  if (args.timezone !== undefined && !isTimezone(args.timezone)) {
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

export const parse_date = defineTransform<ParseDateArgs>({
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
