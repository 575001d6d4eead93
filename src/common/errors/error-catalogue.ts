export interface ErrorDefinition {
  status: number;
  title: string;
  message_en: string;
  message_ar: string;
}

/** Every machine code the storefront API answers with, its HTTP status and its bilingual message. */
export const ERRORS = {
  VALIDATION_FAILED: {
    status: 400,
    title: 'Bad Request',
    message_en: 'The request is not valid. See errors for each field.',
    message_ar: 'الطلب غير صالح. راجع قائمة الأخطاء لكل حقل.',
  },
  MALFORMED_BODY: {
    status: 400,
    title: 'Bad Request',
    message_en: 'The request body is not valid JSON.',
    message_ar: 'محتوى الطلب ليس JSON صالحًا.',
  },
  INVALID_SCOPE: {
    status: 400,
    title: 'Bad Request',
    message_en: 'The requested scopes are unknown, empty or outside what this API key allows.',
    message_ar: 'النطاقات المطلوبة غير معروفة أو فارغة أو خارج ما يسمح به مفتاح الواجهة هذا.',
  },
  INVALID_API_KEY: {
    status: 401,
    title: 'Unauthorized',
    message_en: 'The API key is missing, malformed, unknown or revoked.',
    message_ar: 'مفتاح الواجهة مفقود أو غير صحيح أو غير معروف أو ملغى.',
  },
  INVALID_REFRESH_TOKEN: {
    status: 401,
    title: 'Unauthorized',
    message_en: 'The refresh token is not valid for this API key. Start a new session.',
    message_ar: 'رمز التحديث غير صالح لمفتاح الواجهة هذا. ابدأ جلسة جديدة.',
  },
  REFRESH_TOKEN_REUSED: {
    status: 401,
    title: 'Unauthorized',
    message_en: 'This refresh token has already been used.',
    message_ar: 'سبق استخدام رمز التحديث هذا.',
  },
  UNAUTHENTICATED: {
    status: 401,
    title: 'Unauthorized',
    message_en: 'A valid access token is required.',
    message_ar: 'يلزم رمز وصول صالح.',
  },
  TOKEN_EXPIRED: {
    status: 401,
    title: 'Unauthorized',
    message_en: 'The access token has expired. Refresh the session.',
    message_ar: 'انتهت صلاحية رمز الوصول. جدّد الجلسة.',
  },
  CSRF_TOKEN_INVALID: {
    status: 403,
    title: 'Forbidden',
    message_en: 'Cookie-authenticated changes need the X-CSRF-Token header matching the sf_csrf cookie.',
    message_ar: 'التغييرات الموثقة بملفات تعريف الارتباط تتطلب الترويسة X-CSRF-Token مطابقة لملف sf_csrf.',
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    title: 'Forbidden',
    message_en: 'The access token does not carry the scope this endpoint requires.',
    message_ar: 'رمز الوصول لا يحمل النطاق الذي تتطلبه هذه النقطة.',
  },
  ACCESS_NOT_DECLARED: {
    status: 403,
    title: 'Forbidden',
    message_en: 'This endpoint declares no access rule and is closed.',
    message_ar: 'هذه النقطة لا تعلن قاعدة وصول، لذا فهي مغلقة.',
  },
  NOT_FOUND: {
    status: 404,
    title: 'Not Found',
    message_en: 'The requested resource was not found.',
    message_ar: 'المورد المطلوب غير موجود.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    title: 'Method Not Allowed',
    message_en: 'This method is not allowed on this resource.',
    message_ar: 'هذه الطريقة غير مسموحة على هذا المورد.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: 'Content Too Large',
    message_en: 'The request body is larger than the service accepts.',
    message_ar: 'حجم محتوى الطلب أكبر مما تقبله الخدمة.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: 'Unsupported Media Type',
    message_en: 'Send the request body as application/json.',
    message_ar: 'أرسل محتوى الطلب بصيغة application/json.',
  },
  RATE_LIMITED: {
    status: 429,
    title: 'Too Many Requests',
    message_en: 'This API key has used its requests for this minute. Retry after the time in Retry-After.',
    message_ar: 'استنفد مفتاح الواجهة طلباته لهذه الدقيقة. أعد المحاولة بعد المدة المذكورة في Retry-After.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    title: 'Service Unavailable',
    message_en: 'The service is temporarily unavailable. Retry shortly.',
    message_ar: 'الخدمة غير متاحة مؤقتًا. أعد المحاولة بعد قليل.',
  },
  INTERNAL_ERROR: {
    status: 500,
    title: 'Internal Server Error',
    message_en: 'Something went wrong on our side. Quote the request id when contacting support.',
    message_ar: 'حدث خطأ من جهتنا. اذكر معرّف الطلب عند التواصل مع الدعم.',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];
