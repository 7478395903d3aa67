/** Workflow slugs (interface 2.2): 1 to 255 characters of a-z, 0-9, - and _. */
export const WORKFLOW_SLUG = /^[a-z0-9-_]{1,255}$/;

/** Template slugs (reference send nodes): 1 to 120 characters of a-z, 0-9, - and _. */
export const TEMPLATE_SLUG = /^[a-z0-9-_]{1,120}$/;
