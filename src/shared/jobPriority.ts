/** The priorities a job can have, lowest last in line: a plan sets one, a submit may ask for a lower one. */
export const JOB_PRIORITIES = ['low', 'normal', 'high'] as const;
export type JobPriority = (typeof JOB_PRIORITIES)[number];
