import type { Locale } from '../common/locale.js';

/** Every message the service sends a shopper, and the values each one needs. */
export interface TemplateVars {
  sign_in_code: { code: string; expiresInMinutes: number };
  registration_code: { code: string; expiresInMinutes: number };
  /** Sent when someone registers with an address that already has an account: a sign-in code instead. */
  already_registered_code: { code: string; expiresInMinutes: number };
  /** `total` in minor units of `currency`. */
  order_confirmation: { orderNumber: string | number; total: number; currency: string; itemCount: number };
}

export type TemplateName = keyof TemplateVars;
export const TEMPLATE_NAMES = [
  'sign_in_code',
  'registration_code',
  'already_registered_code',
  'order_confirmation',
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
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minorUnits / 10 ** digits);
}

function lines(...text: string[]): string {
  return text.join('\n') + '\n';
}
