import type { Bilingual } from '../bilingual.js';

/** In a `u` regex a well-formed pair is one code point, so only an unpaired half matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

export const NOT_ALLOWED_FIELD: Bilingual = { en: 'This field is not allowed.', ar: 'هذا الحقل غير مسموح.' };

/**
 * Why PostgreSQL could not store this text, or null when it can: text columns cannot hold NUL, and
 * neither text nor jsonb accepts a lone UTF-16 surrogate (`"\ud800"` is valid JSON, not valid Unicode).
 */
export function textProblem(text: string): { code: string; message: Bilingual } | null {
  if (text.includes('\u0000')) {
    return { code: 'nulCharacter', message: { en: 'Text must not contain a NUL character.', ar: 'يجب ألا يحتوي النص على محرف NUL.' } };
  }
  if (LONE_SURROGATE.test(text)) {
    return {
      code: 'loneSurrogate',
      message: {
        en: 'Text must be valid Unicode: a lone UTF-16 surrogate (\\uD800-\\uDFFF) is not a character.',
        ar: 'يجب أن يكون النص Unicode صالحًا: نصف الزوج البديل في UTF-16 ‏(\\uD800-\\uDFFF) وحده ليس محرفًا.',
      },
    };
  }
  return null;
}
