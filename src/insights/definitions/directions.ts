/**
 * Whether a rise of the figure is good news (`higher_is_better`: sales, conversion), bad news
 * (`lower_is_better`: returns, lateness, failures, durations) or neither (`neutral`: taxes, shipping
 * charged, orders due), as GET /measures and every report column say.
 */
export const DIRECTIONS = ['higher_is_better', 'lower_is_better', 'neutral'] as const;
export type Direction = (typeof DIRECTIONS)[number];
