import { AudienceSubject, HeraldError } from '@herald/contracts';

/** A subject's columns: users and objects share the audience tables (object_type '' for users). */
export interface SubjectColumns {
  readonly subjectType: 'user' | 'object';
  readonly objectType: string;
  readonly subjectId: string;
}

export function subjectColumns(subject: AudienceSubject): SubjectColumns {
  return subject.type === 'user'
    ? { subjectType: 'user', objectType: '', subjectId: subject.distinct_id }
    : { subjectType: 'object', objectType: subject.object_type, subjectId: subject.id };
}

export function subjectFromColumns(row: { subject_type: string; object_type: string; subject_id: string }): AudienceSubject {
  return row.subject_type === 'user' ? { type: 'user', distinct_id: row.subject_id } : { type: 'object', object_type: row.object_type, id: row.subject_id };
}

/** The 404 of interface 7 (short shape), naming the object type and id, or the user. */
export function subjectNotFound(subject: AudienceSubject): HeraldError {
  const name = subject.type === 'user' ? `user '${subject.distinct_id}'` : `object '${subject.object_type}/${subject.id}'`;
  return HeraldError.notFound(`${name} not found`, 'short');
}

/** The global scope is stored as tenant ''. */
export function scopeOf(tenantId: string | undefined): string {
  return tenantId ?? '';
}
