/** Preference evaluation and audience models (issue 7): pure, no I/O, no framework. */
export * from './preference-model';
export * from './evaluate-preference';
export * from './category-record';
export * from './category-choice-update';
