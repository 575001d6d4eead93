/** How long a support session lasts unless the operator says otherwise. */
export const SUPPORT_DEFAULT_MINUTES = 60;
/** A working day at most: a longer look needs a new session, and a new reason. */
export const SUPPORT_MAX_MINUTES = 480;
