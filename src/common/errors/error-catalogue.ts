export interface ErrorDefinition {
  status: number;
  title: string;
  message_en: string;
  message_ar: string;
}

/**
 * Every machine code the service answers with, its HTTP status and its bilingual message. Storefront
 * and auth codes are UPPER_SNAKE; under /admin every code is written lower_snake (the dashboard's
 * dialect, contract section 7), so a code shared by both (NOT_FOUND, VALIDATION_FAILED…) is declared
 * once and the dashboard-only codes are declared in lower_snake.
 */
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
  // --- shopper accounts ---
  INVALID_CREDENTIALS: {
    status: 401,
    title: 'Unauthorized',
    message_en: 'The email address or password is not correct.',
    message_ar: 'البريد الإلكتروني أو كلمة المرور غير صحيحة.',
  },
  ONE_TIME_CODE_INVALID: {
    status: 401,
    title: 'Unauthorized',
    message_en: 'This code is not correct for this email address.',
    message_ar: 'هذا الرمز غير صحيح لهذا البريد الإلكتروني.',
  },
  ONE_TIME_CODE_EXPIRED: {
    status: 401,
    title: 'Unauthorized',
    message_en: 'This code has expired or was already used. Request a new one.',
    message_ar: 'انتهت صلاحية هذا الرمز أو سبق استخدامه. اطلب رمزًا جديدًا.',
  },
  ONE_TIME_CODE_ATTEMPTS_EXCEEDED: {
    status: 401,
    title: 'Unauthorized',
    message_en: 'Too many wrong attempts for this code. Request a new one.',
    message_ar: 'محاولات خاطئة كثيرة لهذا الرمز. اطلب رمزًا جديدًا.',
  },
  ONE_TIME_CODE_RATE_LIMITED: {
    status: 429,
    title: 'Too Many Requests',
    message_en: 'Too many codes were requested for this email address. Retry after the time in Retry-After.',
    message_ar: 'طُلبت رموز كثيرة لهذا البريد الإلكتروني. أعد المحاولة بعد المدة المذكورة في Retry-After.',
  },
  SIGN_IN_RATE_LIMITED: {
    status: 429,
    title: 'Too Many Requests',
    message_en: 'Too many failed sign-ins for this email address. Retry after the time in Retry-After, or sign in with a code.',
    message_ar: 'محاولات دخول فاشلة كثيرة لهذا البريد الإلكتروني. أعد المحاولة بعد المدة المذكورة في Retry-After أو سجّل الدخول برمز.',
  },
  SIGN_IN_REQUIRED: {
    status: 403,
    title: 'Forbidden',
    message_en: 'Sign in or register first: this session has no shopper.',
    message_ar: 'سجّل الدخول أو أنشئ حسابًا أولًا: لا يوجد متسوق في هذه الجلسة.',
  },
  ALREADY_SIGNED_IN: {
    status: 409,
    title: 'Conflict',
    message_en: 'A shopper is already signed in on this session. Sign out first.',
    message_ar: 'يوجد متسوق مسجّل الدخول في هذه الجلسة. سجّل الخروج أولًا.',
  },
  ADDRESS_LIMIT_REACHED: {
    status: 409,
    title: 'Conflict',
    message_en: 'The address book is full (50 addresses). Delete one before adding another.',
    message_ar: 'دفتر العناوين ممتلئ (50 عنوانًا). احذف عنوانًا قبل إضافة آخر.',
  },
  // --- cart and checkout ---
  VARIANT_UNAVAILABLE: {
    status: 409,
    title: 'Conflict',
    message_en: 'This product variant does not exist or is not for sale.',
    message_ar: 'هذا الخيار من المنتج غير موجود أو غير معروض للبيع.',
  },
  INSUFFICIENT_STOCK: {
    status: 409,
    title: 'Conflict',
    message_en: 'Not enough stock for the requested quantity. See lines for what is available.',
    message_ar: 'الكمية المطلوبة غير متوفرة في المخزون. راجع السطور لمعرفة المتاح.',
  },
  CART_EMPTY: {
    status: 409,
    title: 'Conflict',
    message_en: 'The cart is empty.',
    message_ar: 'السلة فارغة.',
  },
  CART_LIMIT_REACHED: {
    status: 409,
    title: 'Conflict',
    message_en: 'The cart is full: at most 100 different items, and at most 999 units of each.',
    message_ar: 'السلة ممتلئة: 100 صنف مختلف كحد أقصى، و999 وحدة كحد أقصى من كل صنف.',
  },
  FULFILMENT_REQUIRED: {
    status: 409,
    title: 'Conflict',
    message_en: 'Choose delivery or pickup before placing the order.',
    message_ar: 'اختر التوصيل أو الاستلام قبل تقديم الطلب.',
  },
  IDEMPOTENCY_KEY_REQUIRED: {
    status: 400,
    title: 'Bad Request',
    message_en: 'This request needs an Idempotency-Key header (1 to 255 visible ASCII characters, e.g. a UUID).',
    message_ar: 'يتطلب هذا الطلب ترويسة Idempotency-Key (من 1 إلى 255 حرفًا مرئيًا من ASCII، مثل UUID).',
  },
  IDEMPOTENCY_KEY_INVALID: {
    status: 400,
    title: 'Bad Request',
    message_en: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters (no spaces), e.g. a UUID.',
    message_ar: 'يجب أن تكون ترويسة Idempotency-Key من 1 إلى 255 حرفًا مرئيًا من ASCII (دون مسافات)، مثل UUID.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    title: 'Unprocessable Content',
    message_en: 'This Idempotency-Key was already used with a different request. Use a new key for a new order.',
    message_ar: 'سبق استخدام مفتاح Idempotency-Key هذا مع طلب مختلف. استخدم مفتاحًا جديدًا لطلب جديد.',
  },
  PAYMENT_DECLINED: {
    status: 402,
    title: 'Payment Required',
    message_en: 'The payment was declined. Try another card or pay cash on delivery.',
    message_ar: 'رُفضت عملية الدفع. جرّب بطاقة أخرى أو ادفع عند الاستلام.',
  },
  PAYMENT_PROVIDER_FAILED: {
    status: 502,
    title: 'Bad Gateway',
    message_en: 'The payment provider did not complete the operation. Nothing was changed; try again shortly.',
    message_ar: 'لم يُكمل مزوّد الدفع العملية. لم يتغيّر شيء؛ أعد المحاولة بعد قليل.',
  },
  SHIPPING_METHOD_UNKNOWN: {
    status: 422,
    title: 'Unprocessable Content',
    message_en: 'This store has no such delivery method. See options.delivery in the quote.',
    message_ar: 'لا توجد طريقة التوصيل هذه في المتجر. راجع options.delivery في عرض السعر.',
  },
  PICKUP_LOCATION_UNKNOWN: {
    status: 422,
    title: 'Unprocessable Content',
    message_en: 'This store has no such pickup location. See options.pickup in the quote.',
    message_ar: 'لا يوجد موقع الاستلام هذا في المتجر. راجع options.pickup في عرض السعر.',
  },
  ADDRESS_UNKNOWN: {
    status: 422,
    title: 'Unprocessable Content',
    message_en: 'No saved address of the signed-in shopper has this id.',
    message_ar: 'لا يوجد عنوان محفوظ بهذا المعرّف للمتسوق المسجّل.',
  },
  PRICE_CHANGED: {
    status: 409,
    title: 'Conflict',
    message_en: 'Prices changed while the order was being placed. Review the cart and place the order again.',
    message_ar: 'تغيّرت الأسعار أثناء تقديم الطلب. راجع السلة وقدّم الطلب مرة أخرى.',
  },
  ORDER_STATE_CONFLICT: {
    status: 409,
    title: 'Conflict',
    message_en: 'The order is not in a state that allows this change.',
    message_ar: 'حالة الطلب لا تسمح بهذا التغيير.',
  },
  // --- the dashboard (contract sections 7 and 8): lower_snake, like every /admin code ---
  missing_permission: {
    status: 403,
    title: 'Forbidden',
    message_en: 'Your role does not include the permission this needs. Ask the store owner to grant it.',
    message_ar: 'دورك لا يتضمن الصلاحية التي يتطلبها هذا. اطلب من مالك المتجر منحها.',
  },
  plan_not_entitled: {
    status: 403,
    title: 'Forbidden',
    message_en: 'The store’s plan does not include this. Upgrade the plan to use it.',
    message_ar: 'خطة المتجر لا تتضمن هذا. رقِّ الخطة لاستخدامه.',
  },
  support_read_only: {
    status: 403,
    title: 'Forbidden',
    message_en: 'A support session can only read; it changes nothing.',
    message_ar: 'جلسة الدعم للقراءة فقط؛ لا تغيّر شيئًا.',
  },
  invalid_range: {
    status: 400,
    title: 'Bad Request',
    message_en: 'The date range is not valid: use last=1..366 or all, or from and to (YYYY-MM-DD, at most 366 days apart), not both.',
    message_ar: 'نطاق التاريخ غير صالح: استخدم last من 1 إلى 366 أو all، أو from وto (YYYY-MM-DD، بفارق 366 يومًا كحد أقصى)، لا كليهما.',
  },
  unknown_measure: {
    status: 400,
    title: 'Bad Request',
    message_en: 'No such measure. GET /admin/insights/measures lists them.',
    message_ar: 'لا يوجد مقياس بهذا الاسم. تعرض GET /admin/insights/measures المقاييس المتاحة.',
  },
  unknown_dimension: {
    status: 400,
    title: 'Bad Request',
    message_en: 'No such dimension. GET /admin/insights/dimensions lists them.',
    message_ar: 'لا يوجد بُعد بهذا الاسم. تعرض GET /admin/insights/dimensions الأبعاد المتاحة.',
  },
  unknown_dimension_value: {
    status: 400,
    title: 'Bad Request',
    message_en:
      'No value of this dimension has this id, slug or name (English or Arabic), or the name is shared by several values. The suggestion lists the closest values.',
    message_ar:
      'لا قيمة لهذا البُعد بهذا المعرّف أو الاسم المختصر (slug) أو الاسم (بالعربية أو الإنجليزية)، أو أن الاسم مشترك بين عدة قيم. يعرض الاقتراح أقرب القيم.',
  },
  too_many_dimensions: {
    status: 400,
    title: 'Bad Request',
    message_en: 'A report can be split by at most 3 dimensions (a time grain counts as one).',
    message_ar: 'يمكن تقسيم التقرير بثلاثة أبعاد كحد أقصى (والوحدة الزمنية تُحسب بُعدًا).',
  },
  over_row_limit: {
    status: 422,
    title: 'Unprocessable Content',
    message_en: 'This report has more than 5,000 rows. Narrow it down, or export it: exports have no row limit.',
    message_ar: 'يتجاوز هذا التقرير 5000 صف. ضيّق نطاقه أو صدّره: لا حد لعدد الصفوف في التصدير.',
  },
  unsupported_combination: {
    status: 400,
    title: 'Bad Request',
    message_en:
      'A measure cannot be split or filtered by these dimensions: they have no meaning together. GET /admin/insights/measures lists the dimensions of each measure.',
    message_ar: 'لا يمكن تقسيم المقياس أو تصفيته حسب هذه الأبعاد: لا معنى لها معًا. تعرض GET /admin/insights/measures أبعاد كل مقياس.',
  },
  query_too_heavy: {
    status: 422,
    title: 'Unprocessable Content',
    message_en:
      'This question reads more records than can be answered in time. Narrow the range, use fewer dimensions or a filter, or export it: exports have no time limit.',
    message_ar:
      'يقرأ هذا السؤال سجلات أكثر مما يمكن الإجابة عنه في الوقت المتاح. ضيّق النطاق أو قلّل الأبعاد أو أضف تصفية، أو صدّره: لا حد زمنيًا للتصدير.',
  },
  export_not_ready: {
    status: 409,
    title: 'Conflict',
    message_en: 'The export is not finished yet. Poll GET /admin/insights/exports/{id} until its status is succeeded.',
    message_ar: 'لم يكتمل التصدير بعد. تابع GET /admin/insights/exports/{id} حتى تصبح حالته succeeded.',
  },
  export_failed: {
    status: 409,
    title: 'Conflict',
    message_en: 'The export failed, so it has no file. Its error says why; start a new export.',
    message_ar: 'فشل التصدير، فلا ملف له. يوضح خطؤه السبب؛ ابدأ تصديرًا جديدًا.',
  },
  export_expired: {
    status: 410,
    title: 'Gone',
    message_en: 'The export’s file was deleted when it expired, 7 days after it was made. Start a new export.',
    message_ar: 'حُذف ملف التصدير عند انتهاء صلاحيته بعد 7 أيام من إنشائه. ابدأ تصديرًا جديدًا.',
  },
  connection_not_tested: {
    status: 409,
    title: 'Conflict',
    message_en: 'The connection has not passed a test of its current settings. Test it (POST /test), then activate it.',
    message_ar: 'لم يجتز الاتصال اختبارًا لإعداداته الحالية. اختبره (POST /test) ثم فعّله.',
  },
  connection_in_use: {
    status: 409,
    title: 'Conflict',
    message_en: 'A flow or a delivery schedule uses this connection. Change or delete them first.',
    message_ar: 'يستخدم هذا الاتصالَ مسارٌ أو جدول تسليم. عدّلهما أو احذفهما أولًا.',
  },
  source_unavailable: {
    status: 422,
    title: 'Unprocessable Content',
    message_en: 'The connection’s source could not be read. The reason says why.',
    message_ar: 'تعذّرت قراءة مصدر الاتصال. يوضح السبب ما حدث.',
  },
  mapping_invalid: {
    status: 400,
    title: 'Bad Request',
    message_en: 'The mapping cannot be used as it is. See errors for each field.',
    message_ar: 'لا يمكن استخدام الربط كما هو. راجع قائمة الأخطاء لكل حقل.',
  },
  connection_not_active: {
    status: 409,
    title: 'Conflict',
    message_en: 'The flow’s connection is not active. Test and activate it first.',
    message_ar: 'اتصال المسار غير مفعّل. اختبره وفعّله أولًا.',
  },
  run_in_progress: {
    status: 409,
    title: 'Conflict',
    message_en: 'A run of this flow is already queued or running. Wait for it to finish.',
    message_ar: 'يوجد تشغيل لهذا المسار في الانتظار أو قيد التنفيذ. انتظر حتى ينتهي.',
  },
  run_not_undoable: {
    status: 409,
    title: 'Conflict',
    message_en:
      'Only an import run that succeeded can be undone: not a preview, an export, or a run that failed, was refused or is still going.',
    message_ar: 'لا يمكن التراجع إلا عن تشغيل استيراد نجح: لا عن معاينة أو تصدير أو تشغيل فشل أو رُفض أو ما زال جاريًا.',
  },
  undo_of_undo: {
    status: 409,
    title: 'Conflict',
    message_en: 'This run is itself an undo and cannot be undone. To change the records again, run the flow.',
    message_ar: 'هذا التشغيل تراجعٌ بذاته ولا يمكن التراجع عنه. لتغيير السجلات مجددًا شغّل المسار.',
  },
  already_undone: {
    status: 409,
    title: 'Conflict',
    message_en: 'This run has been undone already (or its undo is under way). A run is undone once.',
    message_ar: 'سبق التراجع عن هذا التشغيل (أو التراجع جارٍ). يُتراجع عن التشغيل مرة واحدة.',
  },
  undo_expired: {
    status: 410,
    title: 'Gone',
    message_en:
      'This run can no longer be undone: the record of what it changed is kept 90 days (and runs from before undo existed kept none).',
    message_ar: 'لم يعد التراجع عن هذا التشغيل ممكنًا: يُحفظ سجل ما غيّره 90 يومًا (ولم تحفظ التشغيلات السابقة لميزة التراجع أي سجل).',
  },
  run_lists_purged: {
    status: 410,
    title: 'Gone',
    message_en: 'This run’s row lists were removed after 90 days.',
    message_ar: 'حُذفت قوائم صفوف هذا التشغيل بعد 90 يومًا.',
  },
  // The service's own file storage (exports, the data hub's drop), when its operator must mend it.
  storage_full: {
    status: 507,
    title: 'Insufficient Storage',
    message_en: 'The service’s file storage is full, so the file could not be written. The service’s operator must make room.',
    message_ar: 'مخزن ملفات الخدمة ممتلئ، فتعذّرت كتابة الملف. على مشغّل الخدمة أن يفسح مساحة.',
  },
  storage_permission_denied: {
    status: 503,
    title: 'Service Unavailable',
    message_en:
      'The service may not write to its file storage (permission denied, or the storage is read-only). The service’s operator must grant it access.',
    message_ar: 'لا يُسمح للخدمة بالكتابة في مخزن ملفاتها (رُفض الإذن، أو أن المخزن للقراءة فقط). على مشغّل الخدمة أن يمنحها الوصول.',
  },
  storage_bucket_missing: {
    status: 503,
    title: 'Service Unavailable',
    message_en:
      'The bucket the service keeps its files in does not exist. The service’s operator must create it or correct FILE_STORAGE_URL.',
    message_ar: 'الحاوية التي تحفظ فيها الخدمة ملفاتها غير موجودة. على مشغّل الخدمة أن ينشئها أو يصحّح FILE_STORAGE_URL.',
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
  MALFORMED_REQUEST: {
    status: 400,
    title: 'Bad Request',
    message_en:
      'The request is not valid HTTP/1.1. Percent-encode any character outside ASCII in the address (curl: -G --data-urlencode "q=…").',
    message_ar: 'الطلب ليس HTTP/1.1 صالحًا. رمّز أي محرف خارج ASCII في العنوان بترميز النسبة المئوية (في curl: ‎-G --data-urlencode "q=…"‎).',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    title: 'Request Timeout',
    message_en: 'The request did not arrive completely in time.',
    message_ar: 'لم يصل الطلب كاملًا في الوقت المحدد.',
  },
  REQUEST_HEADER_TOO_LARGE: {
    status: 431,
    title: 'Request Header Fields Too Large',
    message_en: 'The request headers are larger than the service accepts (16 KiB in all).',
    message_ar: 'حجم ترويسات الطلب أكبر مما تقبله الخدمة (16 كيلوبايت إجمالًا).',
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

export type ErrorDialect = 'storefront' | 'admin';

/** The code as a client of `dialect` reads it. */
export function codeIn(dialect: ErrorDialect, code: ErrorCode): string {
  return dialect === 'admin' ? code.toLowerCase() : code;
}

/** Requests under /admin are answered in the dashboard's dialect. */
export function dialectOf(url: string): ErrorDialect {
  return url === '/admin' || url.startsWith('/admin/') || url.startsWith('/admin?') ? 'admin' : 'storefront';
}
