export interface ShrinkGuard {
  maxDeactivatePercent: number;
  maxDeactivateCount: number;
}

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
    message_en: `This run would deactivate ${wouldDeactivate} of ${activeRecords} active records (${percent}%), more than the limit of ${limit}. Nothing was changed. Check the file; if it is right, raise the threshold or run once with an override.`,
    message_ar: `كان هذا التشغيل سيوقف ${wouldDeactivate} من ${activeRecords} سجلًا نشطًا (${percent}%)، أي أكثر من الحد (${limit}). لم يتغير شيء. تحقق من الملف؛ وإن كان صحيحًا فارفع الحد أو شغّله مرة واحدة مع تجاوز.`,
  };
}
