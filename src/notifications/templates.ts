import type { Locale } from '../common/locale.js';
import { currencyDigits } from '../common/money.js';

/** Every message the service sends a shopper, and the values each one needs. */
export interface TemplateVars {
  sign_in_code: { code: string; expiresInMinutes: number };
  registration_code: { code: string; expiresInMinutes: number };
  /** Sent when someone registers with an address that already has an account: a sign-in code instead. */
  already_registered_code: { code: string; expiresInMinutes: number };
  /** `total` in minor units of `currency`. */
  order_confirmation: { orderNumber: string | number; total: number; currency: string; itemCount: number };
  /** A scheduled Insights report, its file attached; `from` and `to` are the range's calendar dates. */
  report_delivery: { scheduleName: string; reportName: string; from: string; to: string; rows: number; fileName: string };
  /** To a schedule's owner: a delivery failed for good, and why (in the message's language). */
  report_delivery_failed: { scheduleName: string; reportName: string; dueAt: string; reason: string; attempts: number };
  /** To a data hub flow's alert recipients: a scheduled run went missing, was refused or failed; `reason` in the message's language. */
  data_hub_run_alert: { flowName: string; dueAt: string; status: 'missing' | 'refused' | 'failed'; reason: string };
}

export type TemplateName = keyof TemplateVars;
export const TEMPLATE_NAMES = [
  'sign_in_code',
  'registration_code',
  'already_registered_code',
  'order_confirmation',
  'report_delivery',
  'report_delivery_failed',
  'data_hub_run_alert',
] as const satisfies readonly TemplateName[];

export interface RenderedMessage {
  subject: string;
  text: string;
}

interface Context {
  storeName: string;
}

type Renderer<T extends TemplateName> = (vars: TemplateVars[T], context: Context) => RenderedMessage;

const TEMPLATES: { [T in TemplateName]: Record<Locale, Renderer<T>> } = {
  sign_in_code: {
    en: ({ code, expiresInMinutes }, { storeName }) => ({
      subject: `Your ${storeName} sign-in code: ${code}`,
      text: lines(
        `Your sign-in code for ${storeName} is:`,
        '',
        `    ${code}`,
        '',
        `It expires in ${expiresInMinutes} minutes and works once.`,
        'If you did not ask for it, ignore this email: nobody can sign in without the code.',
      ),
    }),
    ar: ({ code, expiresInMinutes }, { storeName }) => ({
      subject: `رمز الدخول إلى ${storeName}: ${code}`,
      text: lines(
        `رمز تسجيل الدخول إلى ${storeName} هو:`,
        '',
        `    ${code}`,
        '',
        `تنتهي صلاحيته بعد ${expiresInMinutes} دقائق ويُستخدم مرة واحدة.`,
        'إن لم تطلبه فتجاهل هذه الرسالة: لا يمكن لأحد الدخول دون الرمز.',
      ),
    }),
  },
  registration_code: {
    en: ({ code, expiresInMinutes }, { storeName }) => ({
      subject: `Confirm your email for ${storeName}: ${code}`,
      text: lines(
        `Welcome to ${storeName}. To confirm your email address and finish creating your account, enter this code:`,
        '',
        `    ${code}`,
        '',
        `It expires in ${expiresInMinutes} minutes and works once.`,
        'If you did not create an account, ignore this email: no account is created without the code.',
      ),
    }),
    ar: ({ code, expiresInMinutes }, { storeName }) => ({
      subject: `أكّد بريدك الإلكتروني في ${storeName}: ${code}`,
      text: lines(
        `مرحبًا بك في ${storeName}. لتأكيد بريدك الإلكتروني وإكمال إنشاء حسابك، أدخل هذا الرمز:`,
        '',
        `    ${code}`,
        '',
        `تنتهي صلاحيته بعد ${expiresInMinutes} دقائق ويُستخدم مرة واحدة.`,
        'إن لم تنشئ حسابًا فتجاهل هذه الرسالة: لن يُنشأ أي حساب دون الرمز.',
      ),
    }),
  },
  already_registered_code: {
    en: ({ code, expiresInMinutes }, { storeName }) => ({
      subject: `You already have a ${storeName} account: ${code}`,
      text: lines(
        `Someone tried to create a ${storeName} account with this email address, but you already have one.`,
        'Your password has not been changed. To sign in, enter this code:',
        '',
        `    ${code}`,
        '',
        `It expires in ${expiresInMinutes} minutes and works once.`,
        'If this was not you, ignore this email: your account is safe.',
      ),
    }),
    ar: ({ code, expiresInMinutes }, { storeName }) => ({
      subject: `لديك حساب في ${storeName} بالفعل: ${code}`,
      text: lines(
        `حاول أحدهم إنشاء حساب في ${storeName} بهذا البريد الإلكتروني، لكن لديك حسابًا بالفعل.`,
        'لم تتغير كلمة المرور. لتسجيل الدخول أدخل هذا الرمز:',
        '',
        `    ${code}`,
        '',
        `تنتهي صلاحيته بعد ${expiresInMinutes} دقائق ويُستخدم مرة واحدة.`,
        'إن لم تكن أنت فتجاهل هذه الرسالة: حسابك في أمان.',
      ),
    }),
  },
  order_confirmation: {
    en: ({ orderNumber, total, currency, itemCount }, { storeName }) => ({
      subject: `${storeName}: order #${orderNumber} confirmed`,
      text: lines(
        `Thank you for your order at ${storeName}.`,
        '',
        `Order number: #${orderNumber}`,
        `Items: ${itemCount}`,
        `Total: ${formatMoney(total, currency, 'en')}`,
        '',
        'We will let you know when it is on its way.',
      ),
    }),
    ar: ({ orderNumber, total, currency, itemCount }, { storeName }) => ({
      subject: `${storeName}: تم تأكيد الطلب رقم ${orderNumber}`,
      text: lines(
        `شكرًا لطلبك من ${storeName}.`,
        '',
        `رقم الطلب: ${orderNumber}`,
        `عدد القطع: ${itemCount}`,
        `الإجمالي: ${formatMoney(total, currency, 'ar')}`,
        '',
        'سنخبرك عندما يكون طلبك في الطريق إليك.',
      ),
    }),
  },
  report_delivery: {
    en: ({ scheduleName, reportName, from, to, rows, fileName }, { storeName }) => ({
      subject: `${storeName}: ${scheduleName} (${from} to ${to})`,
      text: lines(
        `Here is "${reportName}" for ${from} to ${to}, as scheduled in ${storeName}'s Insights.`,
        '',
        `Rows: ${rows.toLocaleString('en')}`,
        `File: ${fileName} (attached)`,
        '',
        'To change or stop these emails, open the schedule in the dashboard.',
      ),
    }),
    ar: ({ scheduleName, reportName, from, to, rows, fileName }, { storeName }) => ({
      subject: `${storeName}: ${scheduleName} (${from} إلى ${to})`,
      text: lines(
        `إليك تقرير «${reportName}» للفترة من ${from} إلى ${to}، كما جُدول في تحليلات ${storeName}.`,
        '',
        `عدد الصفوف: ${rows.toLocaleString('ar')}`,
        `الملف: ${fileName} (مرفق)`,
        '',
        'لتغيير هذه الرسائل أو إيقافها، افتح الجدول في لوحة التحكم.',
      ),
    }),
  },
  report_delivery_failed: {
    en: ({ scheduleName, reportName, dueAt, reason, attempts }, { storeName }) => ({
      subject: `${storeName}: "${scheduleName}" was not delivered`,
      text: lines(
        `The delivery of "${reportName}" due at ${dueAt} (UTC) failed after ${attempts} attempt${attempts === 1 ? '' : 's'} and was not sent.`,
        '',
        `Why: ${reason}`,
        '',
        'Its recipients received nothing for this due time. The schedule stays on for the next one; its deliveries are listed in the dashboard.',
      ),
    }),
    ar: ({ scheduleName, reportName, dueAt, reason, attempts }, { storeName }) => ({
      subject: `${storeName}: لم يُرسَل «${scheduleName}»`,
      text: lines(
        `فشل إرسال تقرير «${reportName}» المستحق في ${dueAt} (بالتوقيت العالمي) بعد ${attempts} من المحاولات ولم يُرسَل.`,
        '',
        `السبب: ${reason}`,
        '',
        'لم يتلقَّ المستلمون شيئًا لهذا الموعد. يبقى الجدول فعّالًا للموعد التالي، وتظهر عمليات الإرسال في لوحة التحكم.',
      ),
    }),
  },
  data_hub_run_alert: {
    en: ({ flowName, dueAt, status, reason }, { storeName }) => ({
      subject: `${storeName}: the data hub flow "${flowName}" ${RUN_OUTCOME[status].en}`,
      text: lines(
        `The run of "${flowName}" due at ${dueAt} (UTC) ${RUN_OUTCOME[status].en}. Nothing was changed by it.`,
        '',
        `Why: ${reason}`,
        '',
        'The flow keeps its schedule. Its runs, with their counts and rows, are listed in the dashboard; mute the flow there to stop these messages.',
      ),
    }),
    ar: ({ flowName, dueAt, status, reason }, { storeName }) => ({
      subject: `${storeName}: مسار مركز البيانات «${flowName}» ${RUN_OUTCOME[status].ar}`,
      text: lines(
        `تشغيل «${flowName}» المستحق في ${dueAt} (بالتوقيت العالمي) ${RUN_OUTCOME[status].ar}. لم يغيّر شيئًا.`,
        '',
        `السبب: ${reason}`,
        '',
        'يحتفظ المسار بجدوله. تظهر عمليات تشغيله مع أعدادها وصفوفها في لوحة التحكم؛ اكتم المسار هناك لإيقاف هذه الرسائل.',
      ),
    }),
  },
};

const RUN_OUTCOME = {
  missing: { en: 'found no new file', ar: 'لم يجد ملفًا جديدًا' },
  refused: { en: 'was refused by the shrink guard', ar: 'رفضه حارس التقلص' },
  failed: { en: 'failed', ar: 'فشل' },
};

export function renderTemplate<T extends TemplateName>(
  template: T,
  locale: Locale,
  vars: TemplateVars[T],
  context: Context,
): RenderedMessage {
  return (TEMPLATES[template][locale] as Renderer<T>)(vars, context);
}

/** Minor units shown in the currency's own precision (SAR: 2 decimals, KWD: 3, JPY: 0). */
export function formatMoney(minorUnits: number, currency: string, locale: Locale): string {
  const format = new Intl.NumberFormat(locale === 'ar' ? 'ar-SA' : 'en-SA', { style: 'currency', currency });
  return format.format(minorUnits / 10 ** currencyDigits(currency));
}

function lines(...text: string[]): string {
  return text.join('\n') + '\n';
}
