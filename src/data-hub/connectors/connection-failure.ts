import type { Bilingual } from '../../common/bilingual.js';
import { STORAGE_FAILURES } from '../../infra/storage/storage-failure.js';

/**
 * Why a connection test (or a run) could not reach, read or write its source, as the merchant reads it;
 * a platform drop's are the service's own file storage's.
 */
export const CONNECTION_FAILURES = {
  auth_failed: {
    en: 'The server refused the user name or the password.',
    ar: 'رفض الخادم اسم المستخدم أو كلمة المرور.',
  },
  host_unreachable: {
    en: 'The server could not be reached: check the host and the port, and that it accepts connections from this service.',
    ar: 'تعذّر الوصول إلى الخادم: تحقّق من العنوان والمنفذ ومن أنه يقبل الاتصال من هذه الخدمة.',
  },
  host_not_allowed: {
    en: 'This service may not connect to that address (a private or local network address not allowed by its operator).',
    ar: 'لا يُسمح لهذه الخدمة بالاتصال بذلك العنوان (عنوان شبكة خاصة أو محلية لم يسمح به مشغّلها).',
  },
  timeout: {
    en: 'The server did not answer in time.',
    ar: 'لم يُجب الخادم في الوقت المحدد.',
  },
  connection_lost: {
    en: 'The server closed the connection before the operation finished.',
    ar: 'أغلق الخادم الاتصال قبل اكتمال العملية.',
  },
  host_key_mismatch: {
    en: 'The server presented a different host key from the one pinned at the first successful test.',
    ar: 'قدّم الخادم مفتاح مضيف يختلف عن المفتاح المثبّت عند أول اختبار ناجح.',
  },
  not_found: {
    en: 'The server has no such database, bucket or folder.',
    ar: 'لا توجد على الخادم قاعدة البيانات أو الحاوية أو المجلد المطلوب.',
  },
  permission_denied: {
    en: 'The user may not read (or write) what the connection names.',
    ar: 'لا يملك المستخدم صلاحية القراءة (أو الكتابة) لما يحدده الاتصال.',
  },
  no_matching_file: {
    en: 'No file at the source matches the file name template.',
    ar: 'لا يوجد في المصدر ملف يطابق قالب اسم الملف.',
  },
  file_unreadable: {
    en: 'The file’s field names could not be read.',
    ar: 'تعذّرت قراءة أسماء حقول الملف.',
  },
  query_invalid: {
    en: 'The query is not a single statement that only reads.',
    ar: 'الاستعلام ليس عبارة واحدة للقراءة فقط.',
  },
  query_failed: {
    en: 'PostgreSQL could not compute the query’s rows.',
    ar: 'تعذّر على PostgreSQL حساب صفوف الاستعلام.',
  },
  query_columns_repeated: {
    en: 'The query answers two columns by the same name, which a mapping could not tell apart: name each column once (… AS another_name).',
    ar: 'يُرجع الاستعلام عمودين بالاسم نفسه، ولا يستطيع الربط التمييز بينهما: سمِّ كل عمود باسم واحد (… AS اسم_آخر).',
  },
  server_refused: {
    en: 'The server refused the operation without giving a reason (SFTP’s “Failure”): most often its disk or the user’s quota is full, or the folder is read-only.',
    ar: 'رفض الخادم العملية دون ذكر السبب (“Failure” في SFTP): وأغلب ذلك أن قرصه أو حصة المستخدم ممتلئة، أو أن المجلد للقراءة فقط.',
  },
  ...STORAGE_FAILURES,
} as const satisfies Record<string, Bilingual>;

export type ConnectionFailureCode = keyof typeof CONNECTION_FAILURES;

/**
 * A connection that failed for a reason the merchant can act on. `detail` adds what the server said
 * (a syntax error's position, both host key fingerprints) and must never hold a credential.
 */
export class ConnectionFailure extends Error {
  constructor(
    readonly code: ConnectionFailureCode,
    readonly detail?: Bilingual,
  ) {
    super(`${code}: ${CONNECTION_FAILURES[code].en}${detail ? ` ${detail.en}` : ''}`);
  }

  /** The outcome as a test records it (`lastTest`). */
  describe(): { code: ConnectionFailureCode; message_en: string; message_ar: string } {
    const message = CONNECTION_FAILURES[this.code];
    return {
      code: this.code,
      message_en: this.detail ? `${message.en} ${this.detail.en}` : message.en,
      message_ar: this.detail ? `${message.ar} ${this.detail.ar}` : message.ar,
    };
  }
}
