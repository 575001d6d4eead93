/** What a report's `filter[]` and the builder's `filters` say: a dimension, how its values are compared, and the values. */
export const FILTER_OPERATORS = ['in', 'not_in', 'contains', 'gt', 'gte', 'lt', 'lte', 'between', 'is_set', 'is_not_set'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export interface Filter {
  dimension: string;
  op: FilterOperator;
  values: string[];
}
