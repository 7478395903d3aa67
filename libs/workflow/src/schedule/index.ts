/**
 * The pure time computations of digest and batch nodes (issue 8): when a digest closes
 * on its schedule, in which zone, which schedule a category digest uses, when a batch
 * window ends, and what a closing batch keeps and sends. No clock: `now` is a parameter.
 */
export { nextDigestTime } from './next-digest-time';
export { digestZone, FALLBACK_ZONE } from './digest-zone';
export { categoryDigestSchedule, CategoryDigestSchedule, CategoryScheduleSource } from './category-digest-schedule';
export { dynamicDigestSchedule } from './dynamic-schedule';
export { batchWindowEnd, EvaluatedBatchWindow } from './batch-window';
export { retainEvents, digestShouldSend, sendsAtOnce, eventsAtClose } from './batch-content';
export { isValidZone } from './zoned-time';
