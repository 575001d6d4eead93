export interface ShrinkGuard {
  maxDeactivatePercent: number;
  maxDeactivateCount: number;
}

/** How a refusal tells the member what would have happened and what to do. */
export interface RefusalWords {
  en(wouldDeactivate: number, activeRecords: number, percent: number, limit: string): string;
  ar(wouldDeactivate: number, activeRecords: number, percent: number, limit: string): string;
}

export const RUN_WORDS: RefusalWords = {
  en: (would, active, percent, limit) =>
    `This run would deactivate ${would} of ${active} active records (${percent}%), more than the limit of ${limit}. Nothing was changed. Check the file; if it is right, raise the threshold or run once with an override.`,
  ar: (would, active, percent, limit) =>
    `كان هذا التشغيل سيوقف ${would} من ${active} سجلًا نشطًا (${percent}%)، أي أكثر من الحد (${limit}). لم يتغير شيء. تحقق من الملف؛ وإن كان صحيحًا فارفع الحد أو شغّله مرة واحدة مع تجاوز.`,
};

export const UNDO_WORDS: RefusalWords = {
  en: (would, active, percent, limit) =>
    `This undo would deactivate the ${would} records the run created, of ${active} active records (${percent}%), more than the limit of ${limit}. Nothing was changed. Its lists show what it would deactivate; if that is right, undo once with an override.`,
  ar: (would, active, percent, limit) =>
    `كان هذا التراجع سيوقف ${would} سجلًا أنشأها التشغيل، من ${active} سجلًا نشطًا (${percent}%)، أي أكثر من الحد (${limit}). لم يتغير شيء. تعرض قوائمه ما كان سيوقفه؛ وإن كان ذلك صحيحًا فتراجع مرة واحدة مع تجاوز.`,
};

/**
 * The shrink guard (contract section 9): a run that would deactivate more than the threshold share of the
 * active records, or more than the count, is refused before anything is written. A one-time threshold
 * (`overridePercent`) replaces the flow's and lifts the count limit with it. Null: the run may go on.
 */
export function shrinkGuardRefusal(
  guard: ShrinkGuard,
  overridePercent: number | undefined,
  wouldDeactivate: number,
  activeRecords: number,
  words: RefusalWords = RUN_WORDS,
): Record<string, unknown> | null {
  const percent = activeRecords === 0 ? 0 : Math.round((wouldDeactivate / activeRecords) * 10_000) / 100;
  const threshold = overridePercent ?? guard.maxDeactivatePercent;
  const overCount = overridePercent === undefined && wouldDeactivate > guard.maxDeactivateCount;
  if (percent <= threshold && !overCount) return null;
  const limit = overCount ? `${guard.maxDeactivateCount} records` : `${threshold}%`;
  return {
    code: 'shrink_guard',
    wouldDeactivate,
    activeRecords,
    percent,
    threshold: { maxDeactivatePercent: threshold, maxDeactivateCount: guard.maxDeactivateCount },
    message_en: words.en(wouldDeactivate, activeRecords, percent, limit),
    message_ar: words.ar(wouldDeactivate, activeRecords, percent, limit),
  };
}
